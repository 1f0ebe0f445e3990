"""The PettingZoo contract, the kit's conformance check, and determinism given the seed."""

from __future__ import annotations

from pettingzoo.test import parallel_api_test

from coopgraph import envs
from coopgraph.testing import check_kit
from tests.envs.tdw_mat.conftest import make_env


def test_parallel_api_test_passes() -> None:
    parallel_api_test(envs.make("tdw-mat", episode="train/0"), num_cycles=200)


def test_parallel_api_test_passes_with_four_agents_and_the_detector() -> None:
    parallel_api_test(envs.make("tdw-mat", episode="train/14", num_agents=4, perception="detector"), num_cycles=100)


def test_check_kit_passes_on_food_and_stuff() -> None:
    report = check_kit("tdw-mat", episodes=["train/0", "train/13"], steps=40)
    assert {"gograb", "goto", "explore"} <= set(report.affordances)
    assert {"move_forward", "grasp"} <= report.primitives


def test_the_same_seed_gives_the_same_trajectory() -> None:
    def trajectory(seed: int) -> list[tuple]:
        env = make_env(perception="detector", p_miss={"food": 0.5, "stuff": 0.5, "container": 0.5})
        obs, _ = env.reset(seed=seed)
        seen = []
        for index in range(40):
            action = ["[move_forward]", "[turn_left]", "[turn_left]"][index % 3]
            obs, *_ = env.step({"alice": action, "bob": "[turn_right]"})
            seen.append(tuple(sorted(o.id for o in obs["alice"].visible_objects)) + (obs["alice"].time,))
        return seen

    assert trajectory(3) == trajectory(3)


def test_too_many_agents_or_an_unknown_option_are_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="num_agents must be 1..4"):
        envs.make("tdw-mat", num_agents=5)
    with pytest.raises(TypeError, match="unknown tdw-mat option"):
        envs.make("tdw-mat", frames_per_jump=3)
