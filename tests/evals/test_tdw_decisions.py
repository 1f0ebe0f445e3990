"""TDW-MAT decision data end to end on a tiny dataset: the transport planner's choices become records in C-WAH's
format (CoELA's TDW-MAT lettered list, the planner's pick among them), distillation pairs answer with that option's
text, and the agreement bench scores a scripted model that answers it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs.tdw_mat.experts.planner import TransportPlanner
from coopgraph.evals.bench.decision_agreement import evaluate, summarize
from coopgraph.evals.decisions import read_jsonl, write_jsonl
from coopgraph.evals.tdw_decisions import generate
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.testing import scripted_lm

#: Every field `evals.decisions.point_record` writes, for C-WAH and Overcooked alike.
FIELDS = {"id", "env", "episode", "step", "agent", "split", "team", "facts", "options", "expert_index",
          "expert_choice", "oracle_index", "oracle_choice", "oracle_subgoal", "oracle_match", "spec", "prompt_env",
          "messages", "prerank", "prerank_notes", "followed", "rollin"}
OPTION = re.compile(r"^[A-Z]{1,2}\. (.+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path_factory.mktemp("tdw") / "decisions.jsonl"
    summary = write_jsonl(generate(limit_episodes=1, max_frames=300), path)
    assert summary["decisions"] > 5
    return path, read_jsonl(path)


def test_records_label_the_planners_pick_on_coelas_lettered_list(tiny: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = tiny
    for record in records:
        assert set(record) == FIELDS
        assert record["env"] == "tdw-mat" and record["prompt_env"] == "tdw-mat" and record["split"] == "train"
        assert record["options"][record["expert_index"]] == record["expert_choice"]
        prompt = record["messages"][-1]["content"]
        assert OPTION.findall(prompt) == record["options"]  # the lettered list is the record's options, in order
        assert "to the bed" in prompt and "frames" in prompt
    kinds = {r["expert_choice"].split("]")[0] + "]" for r in records}
    assert {"[gograb]", "[explore]"} <= kinds


def test_distillation_pairs_answer_with_the_option_text(tiny: tuple[Path, list[dict[str, Any]]]) -> None:
    from coopgraph.evals.distill.data import write_examples

    path, records = tiny
    out = path.with_name("pairs.jsonl")
    counts = write_examples(records, out)
    pairs = read_jsonl(out)
    assert counts == {"train": len(pairs)} and pairs
    by_id = {r["id"]: r for r in records}
    for pair in pairs:
        assert pair["completion"] == f"Answer: {by_id[pair['id']]['expert_choice']}"
        assert "frames" in pair["prompt"]


def test_agreement_bench_scores_a_model_that_answers_the_expert(tiny: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = tiny
    chosen = [r for r in records if len(r["options"]) > 1][:6]
    answers = iter(f"Answer: {r['expert_choice']}" for r in chosen)
    rows = evaluate(chosen, scripted_lm(lambda messages, kwargs: next(answers)), answer_format="text")
    summary = summarize(rows)  # the bench names the expert "mhp", whoever it is
    assert summary["decisions"] == len(chosen) and summary["agree_mhp"] == 1.0 and summary["invalid"] == 0


def test_the_planner_moves_targets_to_the_bed() -> None:
    env = envs.make("tdw-mat", episode="train/0", num_agents=1)
    result = run_episode(env, [TransportPlanner()], seed=0)
    assert result.metrics["transport_rate"] >= 0.5


def test_cli_refuses_a_member_it_cannot_record(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["data", "decisions", "--env", "tdw-mat", "--team", "mhp,planner",
                                      "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code != 0 and "cannot play in TDW-MAT decision data" in result.output
    assert "Traceback" not in result.output


def test_a_dagger_round_goes_where_the_learner_sends_the_first_planner() -> None:
    """The learner's answer (always the last option here) is followed; the label stays the planner's own pick."""
    from coopgraph.evals.decisions import DecisionRenderer
    from coopgraph.evals.tdw_decisions import episode_decisions

    def last_option(messages: list[Any], _: dict[str, Any]) -> str:
        return "Answer: " + OPTION.findall(messages[-1].content)[-1]

    lm = scripted_lm(last_option)
    records = episode_decisions("train/0", ["planner", "planner"], renderer=DecisionRenderer("coela-lite"),
                                max_frames=300, learner_lm=lm)
    driven = [r for r in records if r["rollin"] == "learner"]
    assert driven and {r["agent"] for r in driven} == {"alice"}
    assert {r["rollin"] for r in records if r["agent"] == "bob"} == {"expert"}
    assert all(r["followed"] == r["options"][-1] for r in driven)
    assert any(r["expert_choice"] != r["followed"] for r in driven)
    assert len(lm.chat_model.calls) == len(driven)
