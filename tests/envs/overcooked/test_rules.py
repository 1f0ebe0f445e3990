"""The paper's rules on overcooked-ai's gridworld: three-onion soups, cooking on the third onion for 20 ticks, 20
points a soup, and Overcooked-Assist's walls and gates."""

from __future__ import annotations

from coopgraph import envs
from coopgraph.envs.overcooked.env import OvercookedEnv
from coopgraph.envs.overcooked.layouts import load_layout
from coopgraph.envs.overcooked.mdp import KitchenGridworld, KitchenState
from coopgraph.envs.overcooked.observation import OvercookedObservation
from coopgraph.envs.overcooked.upstream import Action, Direction, ObjectState, PlayerState

# cramped_room: Alice starts at (1, 2) facing north; the onion dispenser o0 is at (0, 1), the pot at (2, 0), the dish
# dispenser at (1, 3), the serving spot at (3, 3). Bob stays at (3, 1), out of her way.
FETCH_ONION = ["west", "interact"]  # from (2, 1): step to (1, 1) facing the dispenser, take an onion
POT_IT = ["east", "north", "interact"]  # from (1, 1): step to (2, 1), face the pot, put the onion in


def play(env: OvercookedEnv, moves: list[str]) -> OvercookedObservation:
    """Alice plays `moves` while Bob stays; her last observation."""
    obs = None
    for move in moves:
        observations, *_ = env.step({"alice": f"[{move}]", "bob": "[stay]"})
        obs = observations["alice"]
    assert obs is not None
    return obs


def cramped() -> OvercookedEnv:
    env = envs.make("overcooked", layout="cramped_room", horizon=400)
    env.reset()
    play(env, ["north", "west", "interact", *POT_IT])  # one onion in the pot; Alice at (2, 1) facing it
    return env  # type: ignore[no-any-return]


def test_the_third_onion_starts_the_soup_and_it_is_ready_twenty_ticks_later_and_scores_twenty() -> None:
    env = cramped()
    obs = play(env, FETCH_ONION + POT_IT + FETCH_ONION + POT_IT[:2])
    pot = obs.pots[0]
    assert (pot.onions, pot.cooking) == (2, False)
    placed_at = obs.time
    obs = play(env, ["interact"])
    assert (obs.pots[0].onions, obs.pots[0].cooking, obs.pots[0].ticks_left) == (3, True, 19)
    obs = play(env, ["west", "south", "interact", "north", "east", "north"])  # a plate, back facing the pot
    assert obs.holding == "plate"
    while obs.time < placed_at + 19:
        assert not obs.pots[0].ready
        obs = play(env, ["interact"])  # loading an unfinished soup does nothing
        assert obs.holding == "plate"
    obs = play(env, ["stay"])
    assert obs.time == placed_at + 20 and obs.pots[0].ready
    obs = play(env, ["interact", "south", "east", "south"])
    assert obs.holding == "soup in plate" and obs.score == 0
    observations, *_, infos = env.step({"alice": "[interact]", "bob": "[stay]"})
    obs = observations["alice"]
    assert (obs.holding, obs.score, obs.deliveries) == (None, 20, 1)
    assert (infos["alice"]["served"], infos["bob"]["served"]) == (True, False)  # who served, on that tick
    assert not play(env, ["stay"]).holding and env._info("alice")["served"] is False  # and only on that tick
    metrics = env.metrics()
    assert (metrics.score, metrics.deliveries, metrics.per_agent["alice"].deliveries, metrics.success) == \
        (20, 1, 1, True)
    assert metrics.per_agent["bob"].deliveries == 0
    assert metrics.summary()["deliveries_by_agent"] == {"alice": 1.0, "bob": 0.0}


def test_a_one_onion_soup_never_cooks_not_even_by_an_empty_handed_interact() -> None:
    env = cramped()
    obs = play(env, ["interact"] * 5 + ["stay"] * 40)  # 1.1.0's rules would start cooking here
    assert (obs.pots[0].onions, obs.pots[0].cooking, obs.pots[0].ready) == (1, False, False)
    obs = play(env, ["west", "south", "interact", "north", "east", "north", "interact"])
    assert obs.holding == "plate" and obs.pots[0].onions == 1 and env.metrics().score == 0


# no_counter_door: XWPWX / O  2O / D1  W / WGWGW / W   W / XWWSX; gates g0 = (1, 3), g1 = (3, 3).
def gated(alice: tuple[tuple[int, int], tuple[int, int]], bob: tuple[tuple[int, int], tuple[int, int]],
          alice_holds: str | None = None) -> tuple[KitchenGridworld, KitchenState]:
    mdp = KitchenGridworld(load_layout("no_counter_door"))
    state = mdp.get_standard_start_state()
    players = [PlayerState(*alice), PlayerState(*bob)]
    if alice_holds:
        players[0].set_object(ObjectState(alice_holds, alice[0]))
    return mdp, KitchenState(players, {}, gates=state.gates, all_orders=mdp.start_all_orders)


def test_a_gate_opens_on_an_empty_handed_interact_and_the_partner_may_step_in_that_tick() -> None:
    mdp, state = gated(((1, 2), Direction.SOUTH), ((1, 4), Direction.NORTH))
    assert state.gates[(1, 3)] is None
    state, _ = mdp.get_state_transition(state, (Action.INTERACT, Direction.NORTH))
    assert state.players[1].position == (1, 3) and state.gates[(1, 3)] == 0  # occupied: the timer holds
    for _ in range(15):
        state, _ = mdp.get_state_transition(state, (Action.STAY, Action.STAY))
    assert state.gates[(1, 3)] == 0  # held open while someone stands in it
    state, _ = mdp.get_state_transition(state, (Direction.EAST, Action.STAY))  # Alice makes room
    state, _ = mdp.get_state_transition(state, (Action.STAY, Direction.NORTH))  # Bob leaves the gate
    assert state.players[1].position == (1, 2) and state.gates[(1, 3)] == 1
    for _ in range(9):
        state, _ = mdp.get_state_transition(state, (Action.STAY, Action.STAY))
    assert state.gates[(1, 3)] == 10  # still open: ten ticks empty
    state, _ = mdp.get_state_transition(state, (Action.STAY, Action.STAY))
    assert state.gates[(1, 3)] is None


def test_an_opened_gate_can_be_entered_for_ten_ticks_then_it_closes() -> None:
    mdp, state = gated(((1, 2), Direction.SOUTH), ((3, 1), Direction.NORTH))
    state, _ = mdp.get_state_transition(state, (Action.INTERACT, Action.STAY))
    for _ in range(9):
        state, _ = mdp.get_state_transition(state, (Action.STAY, Action.STAY))
    state, _ = mdp.get_state_transition(state, (Direction.SOUTH, Action.STAY))  # the tenth tick: still open
    assert state.players[0].position == (1, 3)
    mdp, state = gated(((1, 2), Direction.SOUTH), ((3, 1), Direction.NORTH))
    state, _ = mdp.get_state_transition(state, (Action.INTERACT, Action.STAY))
    for _ in range(10):
        state, _ = mdp.get_state_transition(state, (Action.STAY, Action.STAY))
    assert state.gates[(1, 3)] is None
    state, _ = mdp.get_state_transition(state, (Direction.SOUTH, Action.STAY))  # closed: this only turns her
    assert state.players[0].position == (1, 2)


def test_interacting_with_a_gate_with_full_hands_does_nothing_and_walls_stop_everyone() -> None:
    mdp, state = gated(((1, 2), Direction.SOUTH), ((3, 1), Direction.EAST), alice_holds="onion")
    state, _ = mdp.get_state_transition(state, (Action.INTERACT, Direction.EAST))
    assert state.gates[(1, 3)] is None and state.players[0].has_object()
    assert state.players[1].position == (3, 1)  # (4, 1) is an onion dispenser
    mdp, state = gated(((1, 2), Direction.SOUTH), ((3, 2), Direction.EAST))
    state, _ = mdp.get_state_transition(state, (Action.STAY, Direction.EAST))
    assert state.players[1].position == (3, 2)  # (4, 2) is a wall


def test_the_environment_reports_gates_and_the_timer_text_counts_down() -> None:
    env = envs.make("overcooked", layout="no_counter_door")
    env.reset()
    observations, *_ = env.step({"alice": "[south]", "bob": "[stay]"})
    observations, *_ = env.step({"alice": "[interact]", "bob": "[stay]"})
    gate = observations["alice"].gates[0]
    assert (gate.position, gate.open, gate.timer) == ((1, 3), True, 1)
    from coopgraph.envs.registry import agent_kit

    kit = agent_kit("overcooked", env.agent_info("alice"))
    kit.belief.update(observations["alice"])
    assert "g0 is open. g0 will stay open for 9 timesteps. g1 is closed." in kit.belief.progress_text()
    assert "open g0." not in [o.text for o in kit.affordances.available(kit.belief)]
