"""Teams of three and four: the world's limit, MHP x 4 and CaPo x 3 in C-WAH, and messages to one partner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import coopgraph
from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs import TeamTooLargeError
from coopgraph.envs.protocol import PrimitiveAction
from coopgraph.testing import scripted_lm

sys.path.insert(0, str(Path(__file__).parent))
from test_capo_behaviour import capo_model  # noqa: E402


def test_each_world_declares_how_many_agents_it_seats() -> None:
    limits = {name: envs.team_limit(name) for name in envs.registered()}
    assert limits == {"collab-capture": 2, "collab-escape": 2, "cwah": 4, "cwah-noisy": 4, "overcooked": 2,
                      "tdw-mat": 4, "toyhouse": 4}


def test_overcooked_refuses_three_cooks_with_its_limit_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(TeamTooLargeError, match="world 'overcooked' seats at most 2 agents; the team has 3"):
        coopgraph.run(env="overcooked", team=["mhp", "mhp", "mhp"], out=tmp_path)
    ran = CliRunner().invoke(app, ["run", "--env", "overcooked", "--team", "mhp,mhp,mhp", "--out", str(tmp_path)])
    assert ran.exit_code != 0
    assert "world 'overcooked' seats at most 2 agents; the team has 3" in ran.output
    assert "Traceback" not in ran.output and list(tmp_path.iterdir()) == []


def test_four_mhp_agents_finish_c_wah_test_0_from_the_command_line(tmp_path: Path) -> None:
    ran = CliRunner().invoke(app, ["run", "--env", "cwah", "--episode", "test/0", "--team", "mhp,mhp,mhp,mhp",
                                   "--out", str(tmp_path), "--json"])
    assert ran.exit_code == 0, ran.output
    result = json.loads(ran.stdout)
    assert result["success"] and result["agents"] == ["alice", "bob", "carol", "dave"]
    assert result["steps"] < 62  # the pair's steps on test/0: four agents are faster


def test_three_capo_agents_finish_with_one_designer_and_two_evaluators_in_a_round(tmp_path: Path) -> None:
    result = coopgraph.run(env="cwah", episode="test/0", team=["capo", "capo", "capo"],
                           llm=lambda: scripted_lm(capo_model()), max_steps=60, out=tmp_path)
    assert result.success
    events = [json.loads(line) for line in Path(str(result.trace_path)).read_text().splitlines()]
    first_round = [e for e in events if e["type"] == "discussion" and (e["version"], e["round"]) == (1, 1)]
    designed = {e["agent"] for e in first_round if e["what"] == "init plan 1.1"}
    answered = {e["agent"] for e in first_round if e["what"] == "agree 1.1"}
    assert designed == {"alice"} and answered == {"bob", "carol"}
    designer = [e["what"] for e in first_round if e["agent"] == "alice"]
    assert designer[:2] == ["init plan 1.1", "consensus on 1.1"]
    order = [e["what"] for e in first_round]  # the designer settles the round only after both answers
    assert order.index("consensus on 1.1") > max(i for i, what in enumerate(order) if what == "agree 1.1")


def test_a_message_addressed_to_one_partner_reaches_only_that_partner() -> None:
    for world in ("cwah", "tdw-mat", "toyhouse"):
        env = envs.make(world, num_agents=3)
        env.reset(seed=0)
        first, second, third = env.possible_agents
        said = PrimitiveAction.parse(f"[send_message] @{second}: meet me in the kitchen")
        assert said.recipient == second and said.message == "meet me in the kitchen"
        wait = PrimitiveAction(kind="wait")
        heard: dict[str, list[str]] = {a: [] for a in env.possible_agents}
        actions = {first: said, second: wait, third: wait}
        for _ in range(40):  # TDW-MAT delivers when the message's frames have passed and the reader is ready
            observations, *_ = env.step(actions)
            actions = dict.fromkeys(env.possible_agents, wait)
            for agent, obs in observations.items():
                heard[agent] += [m.text for m in obs.messages]
            if heard[second]:
                break
        assert heard == {first: [], second: ["meet me in the kitchen"], third: []}, world


def test_a_message_to_nobody_in_the_team_is_an_invalid_action_that_names_the_partners() -> None:
    for world in ("cwah", "tdw-mat", "toyhouse"):
        env = envs.make(world, num_agents=2)
        env.reset(seed=0)
        first, second = env.possible_agents
        wait = PrimitiveAction(kind="wait")
        _, _, _, _, infos = env.step({first: PrimitiveAction.parse("[send_message] @zed: hello"), second: wait})
        reason = str(infos[first].get("reason") or infos[first].get("last_action_reason") or infos[first])
        assert f"no partner 'zed' to address; partners: {second}" in reason, (world, infos[first])


def test_with_two_partners_reveca_asks_its_validation_question_of_the_partner_it_names_only() -> None:
    from coopgraph.graphs.loader import load_spec
    from coopgraph.runtime.episode_loop import run_episode
    from coopgraph.runtime.graph_agent import GraphAgent

    for size in (2, 3):
        team = [GraphAgent(load_spec("reveca-alwaysask", env="cwah"), lm=scripted_lm(capo_model()),
                           vector_memory=False) for _ in range(size)]
        result = run_episode(envs.make("cwah", episode="test/0", num_agents=size), team, max_steps=20, seed=0)
        asked = [m for m in result.messages if ", have you " in m.text]
        assert asked, size
        for message in asked:
            named = message.text.split(",", 1)[0].lower()
            assert message.to == (named if size == 3 else None), message  # a pair's question stays to everyone
