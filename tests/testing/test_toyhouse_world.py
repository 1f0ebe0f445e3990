"""The toyhouse world: PettingZoo's API test, its episodes, and its rules (one hand, closed containers, ticks)."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from coopgraph import envs
from coopgraph.envs.protocol import WAIT, HouseObservation
from coopgraph.testing.toyhouse import ToyhouseEnv, UnknownEpisodeError, episode_names
from coopgraph.testing.toyhouse.grid import Grid


def _play(env: ToyhouseEnv, *actions: str, agent: str = "agent_0") -> HouseObservation:
    obs = None
    for action in actions:
        observations, *_ = env.step({agent: action})
        obs = observations[agent]
        assert obs.last_action_ok, (action, obs.last_action_reason)
    assert obs is not None
    return obs


def _walk(env: ToyhouseEnv, target: str, agent: str = "agent_0", cells: int = 30) -> HouseObservation:
    """Move toward `target` until the world says the agent is already there."""
    for _ in range(cells):
        observations, *_ = env.step({agent: f"[move] {target}"})
        if observations[agent].last_action_reason == "already there":
            return observations[agent]
    raise AssertionError(f"never reached {target}")


def test_toyhouse_passes_pettingzoo_parallel_api_test() -> None:
    parallel_api_test(envs.make("toyhouse"), num_cycles=90)  # random text actions: unreadable, horizon reached
    parallel_api_test(envs.make("toyhouse", episode="toyhouse/3", num_agents=1, max_steps=10), num_cycles=20)


def test_shipped_episodes_and_an_unknown_one_lists_them() -> None:
    assert episode_names() == ["toyhouse/0", "toyhouse/1", "toyhouse/2", "toyhouse/3"]
    with pytest.raises(UnknownEpisodeError, match=r"'toyhouse/9'.*toyhouse/0, toyhouse/1, toyhouse/2, toyhouse/3"):
        envs.make("toyhouse", episode="toyhouse/9")


def test_walking_distance_goes_through_the_door_row() -> None:
    grid = envs.make("toyhouse").grid
    assert isinstance(grid, Grid)
    assert grid.distance((3, 2), (3, 0)) == 2  # one room: straight
    assert grid.distance((3, 2), (7, 2)) == 4 + 1 + 1  # kitchen to hall: up to the door row, along, down
    assert grid.cells_to_room((6, 1), 3) == 4 and grid.cells_to_room((6, 1), 2) == 0
    cell, walked = (3, 2), 0
    while cell != (13, 0):
        cell, walked = grid.next_cell(cell, (13, 0)), walked + 1
    assert walked == grid.distance((3, 2), (13, 0)) == 10 + 1 + 1


def test_the_observation_core_and_a_room_in_sight() -> None:
    env = envs.make("toyhouse", episode="toyhouse/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    obs = observations["agent_0"]
    assert (obs.agent_id, obs.agent_name, obs.time, obs.horizon, obs.last_action_cost) == ("agent_0", "Ann", 0, 80, 0)
    assert (obs.room, obs.room_id, obs.position) == ("hall", 2, (6.0, 1.0))
    assert [o.label for o in obs.visible_objects] == ["<basket> (12)"]
    assert [p.name for p in obs.partners] == ["Ben"]
    obs = _walk(env, "<kitchen> (1)")
    apple = obs.visible(21)
    assert apple is not None and (apple.on, apple.inside, apple.position) == (None, None, (3.0, 2.0))  # on the floor
    assert obs.visible(22) is None  # the book is shut in the study's chest
    assert env.agent_info("agent_0")["goal_text"] == ("Deliver 1 apple and 1 book into the <basket> (12). "
                                                      "Deliver 1 cup onto the <table> (11).")


def test_one_handed_agents_cannot_take_two_items() -> None:
    env = envs.make("toyhouse", episode="toyhouse/1", num_agents=1)
    env.reset(seed=0)
    _walk(env, "<apple> (21)")
    obs = _play(env, "[take] <apple> (21)")
    assert obs.held_ids() == [21]
    _walk(env, "<chest> (13)")
    _play(env, "[open] <chest> (13)", "[wait]")
    observations, *_ = env.step({"agent_0": "[take] <apple> (24)"})
    obs = observations["agent_0"]
    assert not obs.last_action_ok and "hands full" in obs.last_action_reason
    assert obs.held_ids() == [21] and obs.visible(24) is not None
    obs = _play(env, "[drop] <apple> (21)", "[take] <apple> (24)")  # set one down on the floor, take the other
    assert obs.held_ids() == [24] and obs.visible(21).position == obs.position  # type: ignore[union-attr]


def test_a_closed_container_is_opened_first_and_opening_takes_two_ticks() -> None:
    env = envs.make("toyhouse", episode="toyhouse/3", num_agents=1)
    env.reset(seed=0)
    _walk(env, "<kitchen> (1)")
    _walk(env, "<apple> (21)")
    _play(env, "[take] <apple> (21)")
    _walk(env, "<hall> (2)")
    obs = _walk(env, "<chest> (13)")
    observations, *_ = env.step({"agent_0": "[drop] <apple> (21) <chest> (13)"})
    assert "closed; open it first" in observations["agent_0"].last_action_reason
    observations, *_ = env.step({"agent_0": "[open] <chest> (13)"})
    obs = observations["agent_0"]
    assert not obs.ready and obs.last_action_cost == 2
    observations, *_ = env.step({"agent_0": "[drop] <apple> (21) <chest> (13)"})  # ignored: still opening
    obs = observations["agent_0"]
    assert obs.ready and obs.held_ids() == [21] and obs.last_action == "[open] <chest> (13)"
    obs = _play(env, "[drop] <apple> (21) <chest> (13)")
    assert obs.visible(21).inside == 13  # type: ignore[union-attr]
    assert env.metrics().subgoals_done == 1


def test_messages_cost_a_tick_per_sixty_characters_and_wait_for_a_busy_partner() -> None:
    env = envs.make("toyhouse", episode="toyhouse/3", num_agents=2)
    env.reset(seed=0)
    env.step({"agent_0": "[move] <chest> (13)", "agent_1": WAIT})
    text = "Saw <apple> (21) on <table> (11) in the <kitchen> (1). Next: [fetch] <apple> (21)."
    assert 60 < len(text) <= 120
    observations, _, _, _, infos = env.step({"agent_0": "[open] <chest> (13)", "agent_1": f"[send_message] {text}"})
    assert infos["agent_1"]["message"] == text and observations["agent_1"].last_action_cost == 2
    assert observations["agent_0"].messages == []  # opening: the message waits until it is ready
    observations, *_ = env.step({})
    assert [m.text for m in observations["agent_0"].messages] == [text]
    assert observations["agent_1"].ready and observations["agent_1"].time == 3
