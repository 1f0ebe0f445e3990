"""The typed World protocol: the runtime asks a world without probing it, agent info is typed, and nodes read
what is in view through the `Sightings` capability."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from coopgraph import envs
from coopgraph.envs.capabilities import Sightings
from coopgraph.envs.cwah.env import CWAHAgentInfo
from coopgraph.envs.protocol import World
from coopgraph.runtime.episode_loop import run_episode

ROOT = Path(__file__).resolve().parents[2]
#: The runtime modules that talk to a world: the episode loop, run setup, the fork and its replaying world.
RUNTIME = tuple(f"coopgraph/runtime/{name}.py" for name in ("episode_loop", "launch", "fork", "fork_catch_up"))
WORLD_NAMES = {"env", "world"}


def _probes_of_a_world(source: str) -> list[int]:
    """Lines of `getattr(...)`/`hasattr(...)` whose object is a world (a name or attribute `env` or `world`)."""
    lines = []
    for call in ast.walk(ast.parse(source)):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in ("getattr", "hasattr") and call.args):
            continue
        named = {n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name)}
        named |= {n.attr for n in ast.walk(call.args[0]) if isinstance(n, ast.Attribute)}
        if named & WORLD_NAMES:
            lines.append(call.lineno)
    return lines


@pytest.mark.parametrize("module", RUNTIME)
def test_the_runtime_never_probes_a_world_with_getattr_or_hasattr(module: str) -> None:
    assert _probes_of_a_world((ROOT / module).read_text()) == []


def test_the_probe_finder_sees_a_probe_of_a_world() -> None:
    source = 'a = getattr(env, "layout", None)\nb = hasattr(self.world, "x")\nc = getattr(member, "graph")\n'
    assert _probes_of_a_world(source) == [1, 2]


def test_a_world_hands_out_its_own_typed_agent_info() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    env.reset(seed=0)
    assert isinstance(env, World)
    info = env.agent_info("alice")
    assert isinstance(info, CWAHAgentInfo)
    assert info.agent_id == "alice" and info.env == "cwah" and info.episode_id == env.episode_id
    assert info["max_steps"] == info.max_steps and info.get("floorplan") is None  # C-WAH's is `floor_plan`
    with pytest.raises(KeyError):
        info["floorplan"]
    with pytest.raises(ValidationError):
        info.agent_id = "bob"  # frozen: a kit cannot change what the world said


def test_agent_info_refuses_a_field_the_world_does_not_declare() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    env.reset(seed=0)
    fields = env.agent_info("alice").model_dump()
    with pytest.raises(ValidationError, match="floorplan"):
        CWAHAgentInfo(**fields, floorplan=None)


def test_run_episode_refuses_an_environment_that_is_not_a_world() -> None:
    class NotAWorld:
        possible_agents = ["alice"]

    with pytest.raises(TypeError, match="does not implement coopgraph.envs.protocol.World"):
        run_episode(NotAWorld(), [])  # type: ignore[arg-type]


def test_sightings_are_read_off_house_observations_only() -> None:
    house = envs.make("cwah", episode="test/0", num_agents=2)
    kitchen = envs.make("overcooked", episode="cramped_room", num_agents=2)
    assert isinstance(house.reset(seed=0)[0]["alice"], Sightings)
    assert not isinstance(kitchen.reset(seed=0)[0]["alice"], Sightings)
