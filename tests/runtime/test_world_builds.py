"""One world build per run: checking `--env-opt` and finding a person's agent build the world the run then plays,
and handing a run its world changes nothing it does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.play.session import play_episode
from coopgraph.runtime.launch import run_configured
from tests.play.seats import ScriptedSeat


class Builds:
    """Counts `coopgraph.envs.make` calls (every world a run builds goes through it) and remembers the worlds."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.worlds: list[Any] = []
        make = envs.make

        def counted(name: str, **options: Any) -> Any:
            world = make(name, **options)
            self.worlds.append(world)
            return world

        monkeypatch.setattr(envs, "make", counted)


def test_coopgraph_run_with_env_options_builds_the_world_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = Builds(monkeypatch)
    result = CliRunner().invoke(app, ["run", "--env", "cwah-noisy", "--team", "mhp,mhp", "--env-opt", "noise=3",
                                      "--max-steps", "8", "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert len(builds.worlds) == 1
    ran = json.loads(result.output)
    again = run_configured("cwah-noisy", {"noise": 3}, "test/0", ["mhp", "mhp"], "local", 8, tmp_path)
    assert ran["metrics"] == again.metrics and ran["messages"] == [m.model_dump(mode="json") for m in again.messages]


def test_a_refused_run_closes_the_world_its_option_check_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = Builds(monkeypatch)
    closed: list[str] = []
    monkeypatch.setattr(type(envs.make("cwah-noisy", episode="test/0", num_agents=2)), "close",
                        lambda self: closed.append(self.name))
    result = CliRunner().invoke(app, ["run", "--env", "cwah-noisy", "--team", "mhp,nosuch", "--env-opt", "noise=3",
                                      "--json", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown team member 'nosuch'" in result.output
    assert len(builds.worlds) == 2 and closed == ["cwah-noisy"]  # the probe above, and the one the check built


def test_a_run_refuses_a_world_built_for_another_run_and_closes_it(tmp_path: Path) -> None:
    world = envs.make("cwah", episode="test/0", num_agents=3)
    closed: list[bool] = []
    world.close = lambda: closed.append(True)  # type: ignore[method-assign]
    with pytest.raises(ValueError, match="given CWAHEnv with 3 agents for a run of 'cwah' with 2 members"):
        run_configured("cwah", {}, "test/0", ["mhp", "mhp"], "local", 5, tmp_path, world=world)
    assert closed == [True]


def test_play_builds_the_world_once_to_find_the_persons_agent_and_play(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    builds = Builds(monkeypatch)
    result = play_episode("cwah", "test/0", ["mhp", "human"], "local", ScriptedSeat(), tmp_path, max_steps=3)
    assert result["human_agent"] == "bob" and len(builds.worlds) == 1
