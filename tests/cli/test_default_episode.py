"""`coopgraph run` without `--episode` plays the world's own default episode, in every registered world.

C-WAH's `test/0` is no Overcooked layout and no TDW-MAT episode: each world declares its default where it is
registered (`coopgraph.envs.default_episode`), and a run that names none plays that one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app

#: Each shipped world's scripted member (no model): the pair `coopgraph run --team M,M` needs in that world.
SCRIPTED = {"cwah": "mhp", "cwah-noisy": "mhp", "tdw-mat": "rhp", "overcooked": "greedy",
            "collab-capture": "collab-planner", "collab-escape": "collab-planner", "toyhouse": "toyhouse-expert"}


def test_every_registered_world_has_a_scripted_pair_here() -> None:
    shipped = [name for name in envs.registered() if "test" not in name]  # other tests' worlds aside
    assert sorted(SCRIPTED) == shipped, "a new world needs its scripted pair in SCRIPTED"


@pytest.mark.parametrize("world", sorted(SCRIPTED))
def test_a_run_without_episode_plays_the_worlds_default(world: str, tmp_path: Path) -> None:
    member = SCRIPTED[world]
    result = CliRunner().invoke(app, ["run", "--env", world, "--team", f"{member},{member}", "--max-steps", "5",
                                      "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    default = envs.default_episode(world)
    named = envs.make(world, episode=default, num_agents=2)
    assert payload["episode_id"] == named.episode.episode_id  # type: ignore[attr-defined]
    assert payload["env"] == world and payload["steps"] >= 1


@pytest.mark.parametrize("world", sorted(SCRIPTED))
def test_the_declared_default_is_the_one_the_world_builds_unasked(world: str) -> None:
    unasked = envs.make(world, num_agents=2)
    named = envs.make(world, episode=envs.default_episode(world), num_agents=2)
    assert unasked.episode.episode_id == named.episode.episode_id  # type: ignore[attr-defined]


def test_an_unknown_world_is_one_line_listing_the_worlds(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "--env", "overcoked", "--team", "greedy,greedy", "--out",
                                      str(tmp_path)])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "unknown environment 'overcoked'" in lines[0] and "overcooked" in lines[0].split("registered:")[1]


def test_a_world_registered_without_a_default_asks_for_an_episode() -> None:
    envs.register("no-default-test-world", lambda **_: None)  # type: ignore[arg-type, return-value]
    try:
        with pytest.raises(envs.UnknownEnvironmentError, match="declares no default episode"):
            envs.default_episode("no-default-test-world")
    finally:
        envs.registry._REGISTRY.pop("no-default-test-world")
