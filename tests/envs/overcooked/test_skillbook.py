"""LLM-Co's action manager: sticky directives walked by BFS, faced and acted on by verb, and the stalemate rule
that moves only the second player out of a standoff."""

from __future__ import annotations

from pathlib import Path

from coopgraph import envs
from coopgraph.envs.overcooked.affordances import KitchenAffordance, OvercookedAffordances
from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.env import OvercookedEnv
from coopgraph.envs.overcooked.kitchen import Kitchen
from coopgraph.envs.overcooked.layouts import load_layout
from coopgraph.envs.overcooked.observation import CounterView, OvercookedObservation, PotView
from coopgraph.envs.overcooked.skillbook import ActionManager
from coopgraph.envs.protocol import AffordanceGroup, PrimitiveAction, SkillStatus, SkillStep

# coordination_ring with the cooks placed for a head-on meeting in the top corridor: Alice at (1, 1), Bob at (3, 1).
RING_STANDOFF = "{\n    \"grid\": \"\"\"" + "\n                ".join(["XXXPX", "X1 2P", "D X X", "O   X", "XOSXX"]) + \
    "\"\"\",\n}\n"


def directive(phrase: str) -> KitchenAffordance:
    return KitchenAffordance(phrase=phrase, kind=phrase.split()[0], group=AffordanceGroup.OTHER, notes=("test",))


def managers(env: OvercookedEnv, bob_yields: bool = True) -> dict[str, ActionManager]:
    kitchen = Kitchen.from_layout(env.grid_layout)
    return {"alice": ActionManager(kitchen, yields=False), "bob": ActionManager(kitchen, yields=bob_yields)}


def test_a_directive_walks_faces_and_acts_by_verb_then_ends() -> None:
    env = envs.make("overcooked", layout="cramped_room")
    observations, _ = env.reset()
    manager = ActionManager(Kitchen.from_layout(load_layout("cramped_room")), yields=False)
    plan, steps = directive("pick up onion from o0."), []
    step = SkillStep(status=SkillStatus.RUNNING)
    while step.status == SkillStatus.RUNNING:
        step = manager.next_action(plan, observations["alice"])
        assert step.action is not None
        steps.append(step.action.kind)
        observations, *_ = env.step({"alice": step.action, "bob": "[stay]"})
    assert steps == ["north", "west", "interact"] and step.status == SkillStatus.DONE  # walk, turn, take
    assert observations["alice"].holding == "onion"
    step = manager.next_action(directive("pick up plate from p0."), observations["alice"])
    while step.status == SkillStatus.RUNNING:
        observations, *_ = env.step({"alice": step.action, "bob": "[stay]"})
        step = manager.next_action(directive("pick up plate from p0."), observations["alice"])
    assert step.status == SkillStatus.FAILED and step.action is not None and step.action.kind == "stay"
    assert "hands full" in step.reason


def test_loading_an_unready_pot_waits_there_and_asks_again() -> None:
    env = envs.make("overcooked", layout="cramped_room")
    observations, _ = env.reset()
    for move in ("south", "interact", "north", "east", "north"):  # a plate, then to the pot's side facing it
        observations, *_ = env.step({"alice": f"[{move}]", "bob": "[stay]"})
    manager = ActionManager(Kitchen.from_layout(env.grid_layout), yields=False)
    step = manager.next_action(directive("load soup on plate from c0."), observations["alice"])
    assert (step.status, step.action and step.action.kind, step.reason) == (SkillStatus.FAILED, "stay",
                                                                             "soup in c0 is not ready")


def standoff(tmp_path: Path, bob_yields: bool, ticks: int) -> tuple[list[tuple[int, int]], list[str], list[str]]:
    """Alice heads for the counter k2 = (2, 0) and Bob for k5 = (2, 2): both take the cell (2, 1) as their first
    candidate, so they walk into each other. Alice's positions, and both cooks' primitive actions, per tick."""
    path = tmp_path / "ring_standoff.layout"
    path.write_text(RING_STANDOFF)
    env = envs.make("overcooked", layout=str(path))
    observations, _ = env.reset()
    cooks = managers(env, bob_yields)
    plans = {"alice": directive("place onion on k2."), "bob": directive("place onion on k5.")}
    alice, actions = [], {"alice": [], "bob": []}
    for _ in range(ticks):
        moves = {}
        for agent, manager in cooks.items():
            step = manager.next_action(plans[agent], observations[agent])
            assert step.action is not None
            moves[agent] = step.action
            actions[agent].append(step.action.kind)
        observations, *_ = env.step(moves)
        alice.append(observations["alice"].position)
    return alice, actions["alice"], actions["bob"]


def test_the_stalemate_rule_breaks_a_corridor_standoff_in_coordination_ring_within_a_few_ticks(
        tmp_path: Path) -> None:
    alice, alice_moves, bob_moves = standoff(tmp_path, bob_yields=True, ticks=5)
    # ticks 1-2: both walk into (2, 1) and bump (tick 1 turns them); tick 3: Bob, stuck, steps away, and the first
    # side away from Alice is that same cell; tick 4: that step away failed too, so he skips it and steps south
    assert bob_moves[:4] == ["west", "west", "west", "south"]
    assert alice[:4] == [(1, 1), (1, 1), (1, 1), (2, 1)]  # Alice is through on the fourth tick
    assert alice_moves[:4] == ["east"] * 4  # the first player never yields
    assert bob_moves[4] == "west"  # Bob resumes his directive: (3, 2) is a side of k5, he turns to face it


def test_without_the_rule_the_standoff_lasts(tmp_path: Path) -> None:
    alice, _, bob_moves = standoff(tmp_path, bob_yields=False, ticks=12)
    assert set(alice) == {(1, 1)} and set(bob_moves) == {"west"}


def test_move_away_steps_away_from_the_partner_and_wait_stays() -> None:
    env = envs.make("overcooked", layout="cramped_room")
    observations, _ = env.reset()
    manager = ActionManager(Kitchen.from_layout(env.grid_layout), yields=False)
    step = manager.next_action(directive("move away."), observations["alice"])
    # Alice (1, 2) is west of and below Bob (3, 1): west is away but a counter, south away but a dispenser; then
    # the fixed order west, north, south, east gives north
    assert step.status == SkillStatus.DONE and step.action is not None and step.action.kind == "north"
    step = manager.next_action(directive("wait."), observations["alice"])
    assert (step.status, step.action and step.action.kind) == (SkillStatus.DONE, "wait")


def test_an_onion_for_a_full_pot_fails_there_instead_of_a_put_that_never_was() -> None:
    env = envs.make("overcooked", layout="cramped_room")
    observations, _ = env.reset()
    manager = ActionManager(Kitchen.from_layout(env.grid_layout), yields=False)
    endings = []
    for phrase in ["pick up onion from o0.", "place onion in c0."] * 4:
        step = SkillStep(status=SkillStatus.RUNNING)
        while step.status == SkillStatus.RUNNING:
            step = manager.next_action(directive(phrase), observations["alice"])
            assert step.action is not None
            observations, *_ = env.step({"alice": step.action, "bob": "[stay]"})
        endings.append((step.status, step.reason))
    assert endings[1:6:2] == [(SkillStatus.DONE, "put onion at c0")] * 3
    assert endings[7] == (SkillStatus.FAILED, "c0 is full") and step.action is not None and step.action.kind == "stay"
    assert observations["alice"].holding == "onion"  # still in hand: the pot took nothing


def at_the_pot_with_a_plate() -> tuple[OvercookedEnv, OvercookedObservation]:
    """cramped_room, Alice holding a plate on the pot's only side, facing it (c0 empty)."""
    env = envs.make("overcooked", layout="cramped_room")
    observations, _ = env.reset()
    for move in ("south", "interact", "north", "east", "north"):
        observations, *_ = env.step({"alice": f"[{move}]", "bob": "[stay]"})
    return env, observations["alice"]


def test_an_end_that_changed_nothing_is_reported_with_the_situation_the_list_shows() -> None:
    """The typed report a planner filters on, never the English reason: the same token the belief gives the
    option, so an unchanged kitchen compares equal."""
    env, obs = at_the_pot_with_a_plate()
    manager = ActionManager(Kitchen.from_layout(env.grid_layout), yields=False)
    step = manager.next_action(directive("load soup on plate from c0."), obs)
    assert step.status == SkillStatus.FAILED and step.unchanged == "holding plate; c0: 0 onions, not cooking, not ready"
    belief = OvercookedBelief("alice", env.agent_info("alice"))
    belief.update(obs)
    assert belief.situation("c0") == step.unchanged
    loaded = [o for o in OvercookedAffordances().available(belief) if o.text == "load soup on plate from c0."]
    assert [o.situation for o in loaded] == [step.unchanged]
    full = obs.model_copy(update={"holding": "onion", "pots": [PotView(position=(2, 0), onions=3, cooking=True)]})
    step = manager.next_action(directive("place onion in c0."), full)
    assert step.status == SkillStatus.FAILED and step.unchanged == "holding onion; c0: 3 onions, cooking, not ready"
    ready = obs.model_copy(update={"pots": [PotView(position=(2, 0), onions=3, ready=True)]})
    step = manager.next_action(directive("load soup on plate from c0."), ready)
    assert step.status == SkillStatus.DONE and step.unchanged is None  # the soup goes on the plate


def test_an_interact_the_world_will_ignore_ends_done_as_before_but_says_it_did_nothing() -> None:
    """A pick-up from a counter a partner has just emptied: LLM-Co's manager interacts and calls it done (the
    status stays, the behaviour traces with it); the report says nothing changed, and the world agrees."""
    env = envs.make("overcooked", layout="cramped_room")
    observations, _ = env.reset()
    kitchen = Kitchen.from_layout(env.grid_layout)
    counter = kitchen.labels[(0, 2)]  # west of Alice's start
    facing = observations["alice"].model_copy(update={"facing": "west"})
    manager = ActionManager(kitchen, yields=False)
    step = manager.next_action(directive(f"pick up onion from {counter}."), facing)
    assert (step.status, step.action) == (SkillStatus.DONE, PrimitiveAction(kind="interact"))
    assert step.unchanged == f"holding nothing; {counter}: empty"
    laden = facing.model_copy(update={"counters": [CounterView(position=(0, 2), item="onion")]})
    assert manager.next_action(directive(f"pick up onion from {counter}."), laden).unchanged is None
    assert manager.next_action(directive("pick up onion from o0."), facing).unchanged is None  # still walking


def test_a_directive_that_cannot_reach_its_target_is_not_reported_as_doing_nothing() -> None:
    """Blocked by the partner: that depends on where the partner stands, not on what the directive acts on."""
    env, obs = at_the_pot_with_a_plate()
    manager = ActionManager(Kitchen.from_layout(env.grid_layout), yields=False)
    elsewhere = obs.model_copy(update={"position": (1, 1), "partners": [obs.partners[0].model_copy(
        update={"position": (2, 1)})]})
    step = manager.next_action(directive("load soup on plate from c0."), elsewhere)
    assert step.status == SkillStatus.FAILED and step.unchanged is None
