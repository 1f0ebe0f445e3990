"""Frames as time: each primitive's frame cost, message cost, asynchronous stepping and the horizon."""

from __future__ import annotations

import pytest

from coopgraph.envs.tdw_mat.env import FAILURE, ONGOING, SUCCESS, TDWMatEnv
from coopgraph.envs.tdw_mat.rules import TDWRules
from tests.envs.tdw_mat.conftest import make_env, place, put_thing, things


@pytest.mark.parametrize(("length", "frames"), [(1, 1), (500, 1), (501, 2), (1000, 2), (1001, 3), (1757, 4)])
def test_a_message_costs_one_frame_per_started_500_characters(length: int, frames: int) -> None:
    assert TDWRules().message_frames("x" * length) == frames


@pytest.mark.parametrize(("action", "frames"), [("[move_forward]", 14), ("[turn_left]", 2), ("[turn_right]", 2),
                                                ("[wait]", 1), ("[send_message] " + "y" * 501, 2)])
def test_each_primitive_spends_its_frames(env: TDWMatEnv, action: str, frames: int) -> None:
    obs, *_, infos = env.step({"alice": action, "bob": "[move_forward]"})
    # the step ends at the first action that ends: alice's when it is shorter than bob's 14 frames
    assert obs["alice"].time == min(frames, 14)
    assert infos["alice"]["cost"] == frames


def test_a_move_goes_half_a_metre_along_the_heading_and_a_turn_15_degrees(env: TDWMatEnv) -> None:
    place(env, "alice", (0.74, -2.78), heading=0.0)
    env.step({"alice": "[move_forward]", "bob": "[move_forward]"})
    assert env.world.agents["alice"].position == pytest.approx((0.74, -2.28))
    env.step({"alice": "[turn_right]", "bob": "[turn_left]"})
    assert env.world.agents["alice"].heading == 15.0 and env.world.agents["bob"].heading == -15.0


def test_the_world_runs_until_any_action_ends_and_the_other_goes_on(env: TDWMatEnv) -> None:
    obs, *_, infos = env.step({"alice": "[move_forward]", "bob": "[send_message] hello"})
    assert obs["bob"].time == 1 and obs["bob"].ready and infos["bob"]["action_status"] == SUCCESS
    assert not obs["alice"].ready and infos["alice"]["action_status"] == ONGOING
    start = env.world.agents["alice"].position
    for _ in range(13):  # whatever alice is sent while busy is ignored
        obs, *_ = env.step({"alice": "[turn_left]", "bob": "[wait]"})
    assert obs["alice"].time == 14 and obs["alice"].ready
    assert env.world.agents["alice"].position != start and env.world.agents["alice"].heading == 0.0


def test_a_message_reaches_a_busy_partner_when_it_is_free_again(env: TDWMatEnv) -> None:
    obs, *_ = env.step({"alice": "[move_forward]", "bob": "[send_message] the apple is here"})
    assert obs["alice"].messages == []
    while not obs["alice"].ready:
        obs, *_ = env.step({"alice": "[wait]", "bob": "[wait]"})
    assert [m.text for m in obs["alice"].messages] == ["the apple is here"]
    assert obs["bob"].messages == []  # not to the sender


def test_an_invalid_grasp_costs_one_frame_and_says_why(env: TDWMatEnv) -> None:
    apple = things(env, "target")[0]
    place(env, "alice", (0.74, -2.78))
    put_thing(env, apple, (0.74, -0.28))  # 2.5 m away
    obs, *_, infos = env.step({"alice": f"[grasp] <{apple.name}> ({apple.id})", "bob": "[move_forward]"})
    assert obs["alice"].time == 1 and not obs["alice"].last_action_ok
    assert "out of reach" in infos["alice"]["reason"] and infos["alice"]["action_status"] == FAILURE


def test_a_grasp_walks_to_the_object_then_takes_it(env: TDWMatEnv) -> None:
    apple = things(env, "target")[0]
    place(env, "alice", (0.74, -2.78))
    put_thing(env, apple, (0.74, -1.28))  # 1.5 m: walk 0.8 m (0.8 / (0.5/14) = 22.4 -> 23 frames) + 2
    obs, *_, infos = env.step({"alice": f"[grasp] <{apple.name}> ({apple.id})", "bob": "[wait]"})
    assert infos["alice"]["cost"] == 25
    while not obs["alice"].ready:
        obs, *_ = env.step({"bob": "[wait]"})
    assert obs["alice"].time == 25 and apple.id in obs["alice"].held_ids()


def test_the_episode_truncates_at_the_horizon() -> None:
    env = make_env(max_steps=30)
    truncated: dict[str, bool] = {}
    steps = 0
    while env.agents:
        _, _, _, truncated, _ = env.step({"alice": "[move_forward]", "bob": "[turn_left]"})
        steps += 1
    assert env.world.time == 30 and all(truncated.values())
