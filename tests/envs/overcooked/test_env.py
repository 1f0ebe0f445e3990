"""The Overcooked world as a PettingZoo ParallelEnv, made by name, run from the CLI with scripted partners."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from pettingzoo.test import parallel_api_test
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs.overcooked import upstream


def test_overcooked_passes_pettingzoo_parallel_api_test() -> None:
    parallel_api_test(envs.make("overcooked", layout="cramped_room", horizon=40), num_cycles=60)  # random text
    parallel_api_test(envs.make("overcooked", layout="no_counter_door", horizon=10), num_cycles=20)


def test_made_by_name_with_layout_and_horizon_or_with_the_runners_episode_and_max_steps() -> None:
    env = envs.make("overcooked", layout="forced_coordination", horizon=400)
    assert (env.config.layout, env.config.max_steps, env.possible_agents) == ("forced_coordination", 400,
                                                                               ["alice", "bob"])
    env = envs.make("overcooked", episode="cramped_room", num_agents=2, max_steps=30)
    observations, _ = env.reset(seed=3)
    assert env.episode.episode_id == "cramped_room" and observations["bob"].horizon == 30
    with pytest.raises(ValueError, match="played by 2 cooks"):
        envs.make("overcooked", layout="cramped_room", num_agents=3)
    with pytest.raises(ValueError, match="has 4 player"):
        envs.make("overcooked", layout="multiplayer_schelling")
    with pytest.raises(ValueError, match="disagree"):
        envs.make("overcooked", layout="cramped_room", episode="forced_coordination")


def test_it_never_ends_early_and_truncates_at_the_horizon() -> None:
    env = envs.make("overcooked", layout="cramped_room", horizon=5)
    env.reset()
    for tick in range(1, 6):
        _, rewards, terminations, truncations, infos = env.step({"alice": "[stay]", "bob": "[wait]"})
        assert not any(terminations.values()) and all(truncations.values()) == (tick == 5)
    assert env.agents == [] and env.metrics().ticks == 5 and not env.metrics().success


def test_unreadable_actions_are_counted_and_messages_reach_the_partner_next_tick() -> None:
    env = envs.make("overcooked", layout="cramped_room")
    env.reset()
    observations, *_, infos = env.step({"alice": "[jump]", "bob": "[send_message] Take the onions, Alice."})
    assert infos["alice"]["ok"] is False and "unknown action [jump]" in infos["alice"]["reason"]
    assert [m.text for m in observations["alice"].messages] == ["Take the onions, Alice."]
    assert observations["bob"].position == (3, 1)  # talking costs the tick
    metrics = env.metrics()
    assert metrics.per_agent["alice"].invalid_actions == 1 and metrics.communication_steps == 1


def test_the_world_is_deterministic() -> None:
    def play() -> list[str]:
        env = envs.make("overcooked", layout="coordination_ring", horizon=30)
        env.reset(seed=1)
        moves = ["[north]", "[east]", "[interact]", "[south]", "[west]", "[stay]"]
        frames = []
        for tick in range(30):
            env.step({"alice": moves[tick % 6], "bob": moves[(tick * 5) % 6]})
            frames.append(env.render())
        return frames

    assert play() == play()


def test_nothing_is_written_into_the_installed_package(tmp_path: Path) -> None:
    package = Path(importlib.util.find_spec(upstream.PACKAGE).origin or "").parent
    before = {p: p.stat().st_mtime for p in package.rglob("*")}
    env = envs.make("overcooked", layout="cramped_room", horizon=20)
    env.reset()
    for _ in range(20):
        env.step({"alice": "[interact]", "bob": "[north]"})
    assert {p: p.stat().st_mtime for p in package.rglob("*")} == before
    assert not list(package.rglob("__pycache__")) and not list(package.rglob("*.pkl"))


@pytest.mark.parametrize("team", ["greedy,greedy", "greedy,random"])
def test_coopgraph_run_plays_a_scripted_team_and_prints_a_score(tmp_path: Path, team: str) -> None:
    result = CliRunner().invoke(app, ["run", "--env", "overcooked", "--episode", "cramped_room", "--team", team,
                                      "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["env"] == "overcooked" and payload["episode_id"] == "cramped_room"
    assert payload["steps"] == 400 and payload["metrics"]["score"] > 0 and payload["success"]
    assert payload["metrics"]["score"] == 20 * payload["metrics"]["deliveries"]
    assert sum(a["deliveries"] for a in payload["per_agent"].values()) == payload["metrics"]["deliveries"]
    served = payload["metrics"]["deliveries_by_agent"]  # who served, as the issue asks for it
    assert served == {agent: a["deliveries"] for agent, a in payload["per_agent"].items()}
    human = CliRunner().invoke(app, ["run", "--env", "overcooked", "--episode", "cramped_room", "--team", team,
                                     "--out", str(tmp_path)])
    assert f"served by alice {int(served['alice'])}, bob {int(served['bob'])})" in human.output
