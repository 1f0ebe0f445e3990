"""C-WAH through the public entry points: registry, PettingZoo conformance, options and errors."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from coopgraph.envs import UnknownEnvironmentError, make, register, registered
from coopgraph.envs.cwah import CWAHEnv
from coopgraph.envs.protocol import Observation


@pytest.mark.parametrize("name", ["cwah", "cwah-noisy"])
def test_parallel_api_conformance(name: str) -> None:
    env = make(name, episode="test/1", num_agents=2, max_steps=60)
    parallel_api_test(env, num_cycles=80)  # random text actions: all invalid, horizon reached


def test_conformance_with_three_agents() -> None:
    parallel_api_test(make("cwah", episode="test/2", num_agents=3, max_steps=20), num_cycles=30)


def test_registry_lists_cwah_and_rejects_unknown_names() -> None:
    assert {"cwah", "cwah-noisy"} <= set(registered())
    with pytest.raises(UnknownEnvironmentError) as error:
        make("cwha")
    assert "cwah" in str(error.value) and "cwah-noisy" in str(error.value)


def test_register_refuses_silent_overwrite() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register("cwah", lambda **_: None)  # type: ignore[arg-type, return-value]


def test_make_passes_options_and_defaults() -> None:
    env = make("cwah-noisy", episode="test/3", num_agents=4, walk_speed=1.0)
    assert isinstance(env, CWAHEnv)
    assert env.possible_agents == ["alice", "bob", "carol", "dave"]
    assert env.noise == 10 and env.config.max_steps == 250 and env.config.walk_speed == 1.0
    with pytest.raises(TypeError, match="unknown C-WAH option"):
        make("cwah", walkspeed=2)


def test_observations_are_typed_and_render_into_the_text_space() -> None:
    env = make("cwah", episode="test/0")
    observations, infos = env.reset(seed=3)
    assert set(observations) == set(infos) == {"alice", "bob"}
    observation = observations["alice"]
    assert isinstance(observation, Observation)
    assert observation.goal and observation.goal_text.startswith("Find and put")
    assert env.observation_space("alice").contains(observation.model_dump_json())
    assert env.action_space("alice").contains("[walk] <kitchen> (60)")
