"""The two worlds as PettingZoo envs and kits: the API tests, check_kit, episodes, options, scripted partners."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pettingzoo.test import parallel_api_test
from typer.testing import CliRunner

import coopgraph
from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs.registry import agent_kit
from coopgraph.testing.kit_checks import check_kit

GAMES = ["collab-capture", "collab-escape"]


@pytest.mark.parametrize("name", GAMES)
def test_each_game_passes_parallel_api_test_and_check_kit(name: str) -> None:
    parallel_api_test(envs.make(name), num_cycles=40)
    report = check_kit(name, episodes=["test/0", "test/1"], steps=12)
    assert report.capabilities == frozenset({"layout"}) and report.prompt_env == name


@pytest.mark.parametrize("name", GAMES)
def test_an_unknown_episode_lists_the_known_ones(name: str) -> None:
    with pytest.raises(ValueError, match=r"episodes: test/0 \.\. test/\d"):
        envs.make(name, episode="test/99")


def test_options_pick_the_reference_or_the_prompt_and_bad_values_name_the_choices() -> None:
    assert envs.make("collab-escape", graph="described").graph[7] == (6, 8)
    assert envs.make("collab-capture", distance="graph").config.distance == "graph"
    with pytest.raises(ValueError, match="graphs: coded, described"):
        envs.make("collab-escape", graph="drawn")
    with pytest.raises(ValueError, match="distances: number, graph"):
        envs.make("collab-capture", distance="far")
    env = envs.make("collab-escape", max_turns=2)
    env.reset(seed=0)
    for _ in range(2):
        _, _, terms, truncs, _ = env.step({"alice": "[wait]", "bob": "[wait]"})
    assert not env.agents and (terms["alice"] or truncs["alice"])


def test_the_kits_list_the_reference_actions_lettered_and_the_skill_book_plays_them() -> None:
    env = envs.make("collab-capture", episode="test/0")
    observations, _ = env.reset(seed=0)
    kit = agent_kit("collab-capture", env.agent_info("bob"))
    kit.belief.update(observations["bob"])
    options = kit.affordances.available(kit.belief)
    assert [o.text for o in options] == ["A. Stay in current room", "B. Move to room 5", "C. Move to room 9",
                                       "D. Move to room 1"]
    assert kit.skillbook.next_action(options[2], observations["bob"]).action.text == "[move] <room> (9)"
    escape = envs.make("collab-escape")
    observations, _ = escape.reset(seed=0)
    kit = agent_kit("collab-escape", escape.agent_info("alice"))
    kit.belief.update(observations["alice"])
    assert [o.text for o in kit.affordances.available(kit.belief)] == [
        "A. move to room 2", "B. move to room 10", "C. fix generator in room 1", "D. wait"]
    assert "The generator in room 1 needs 2 more fixes." in kit.belief.progress_text()


def test_an_impossible_action_is_a_stay_counted_invalid_with_the_reason() -> None:
    env = envs.make("collab-capture")
    env.reset(seed=0)
    observations, *_ = env.step({"alice": "[move] <room> (2)", "bob": "[press] <button> (6)"})
    assert observations["alice"].room == 1 and not observations["alice"].last_action_ok
    assert "cannot be reached" in observations["alice"].last_action_reason
    assert env.metrics().invalid_actions == 2


@pytest.mark.parametrize(("name", "key", "expected"), [("collab-capture", "turns_to_capture", 3.0),
                                                       ("collab-escape", "escaped", 1.0)])
def test_the_planner_pair_finishes_each_game(name: str, key: str, expected: float, tmp_path: Path) -> None:
    result = coopgraph.run(env=name, episode="test/0", team=["collab-planner", "collab-planner"], out=tmp_path)
    assert result.success and result.metrics[key] == expected and result.metrics["invalid_actions"] == 0


def test_random_partners_play_legal_actions_to_the_end_and_the_cli_runs_a_game(tmp_path: Path) -> None:
    result = coopgraph.run(env="collab-capture", episode="test/2", team=["collab-random", "collab-random"],
                           out=tmp_path)
    assert result.metrics["invalid_actions"] == 0 and (result.success or result.steps == 30)
    out = CliRunner().invoke(app, ["run", "--env", "collab-escape", "--team", "collab-planner,collab-planner",
                                   "--out", str(tmp_path), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["metrics"]["escaped"] == 1.0
