"""`coopgraph optimize`: a tuned program is measured through the node's own adapter and round-trips via a spec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dspy
import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.decisions import generate, write_jsonl
from coopgraph.evals.optimize import NodeTuner, agrees, choice_node, examples, split_examples
from coopgraph.graphs.compiler import node_context
from coopgraph.graphs.loader import load_spec
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for
from coopgraph.testing import scripted_lm


@pytest.fixture(scope="module")
def decisions() -> list[dict[str, Any]]:
    return list(generate("cwah", "train", ["mhp", "mhp"], limit_episodes=4, oracle_restarts=20))


def letter_b(messages: list[Any], kwargs: dict[str, Any]) -> str:
    return "Reasoning: go\nAnswer: B"


def test_choice_node_defaults_to_the_action_choice_and_lists_nodes_when_unknown() -> None:
    loaded = load_spec("coela")
    assert loaded.spec.nodes[choice_node(loaded)].use == "planning.choose_action"
    with pytest.raises(KeyError, match="nodes: "):
        choice_node(loaded, "nope")


def test_examples_carry_the_expert_choice_and_skip_single_options(decisions: list[dict[str, Any]]) -> None:
    points = examples(decisions)
    assert len(points) == sum(len(d["options"]) >= 2 for d in decisions) > 10
    first = next(d for d in decisions if len(d["options"]) >= 2)
    assert points[0].answer == first["expert_choice"] and set(points[0].inputs().keys()) == {"context", "options"}


def test_split_keeps_training_and_held_out_points_apart(decisions: list[dict[str, Any]]) -> None:
    train, held = split_examples(decisions, 10, 10, seed=0)
    assert train and held
    assert not {e.id for e in train} & {e.id for e in held}
    assert split_examples(decisions, 10, 10, seed=0)[0] == train


def test_agreement_counts_hits_first_options_and_invalid(decisions: list[dict[str, Any]]) -> None:
    points = examples(decisions)[:12]
    tuner = NodeTuner("coela", scripted_lm(letter_b))
    result = tuner.measure(tuner.program, points)
    expected = sum(e.answer == e.options[1] for e in points)
    assert result.total == 12 and result.agree == expected and result.first_option == 0 and result.invalid == 0
    nonsense = NodeTuner("coela", scripted_lm(["???"]))
    assert nonsense.measure(nonsense.program, points[:2]).as_dict()["invalid"] == 1.0


def test_bootstrap_keeps_only_demos_the_metric_accepts(decisions: list[dict[str, Any]]) -> None:
    points = examples(decisions)
    hits = [e for e in points if e.answer == e.options[1]]
    misses = [e for e in points if e.answer != e.options[1]]
    assert hits and misses
    tuner = NodeTuner("coela", scripted_lm(letter_b))
    tuned = tuner.optimize(misses[:3] + hits[:1], "bootstrap", demos=1)
    demos = tuned.predict.demos
    assert len(demos) == 1 and demos[0]["answer"] == demos[0]["options"][1] == hits[0].answer


def test_metric_rejects_invalid_answers() -> None:
    example = dspy.Example(answer="[gograb] <apple> (1)")
    assert agrees(example, dspy.Prediction(answer="[gograb] <apple> (1)", valid=True))
    assert not agrees(example, dspy.Prediction(answer="[gograb] <apple> (1)", valid=False))
    assert not agrees(example, dspy.Prediction(answer="[goexplore] <kitchen> (2)", valid=True))


def test_saved_program_round_trips_through_a_spec(tmp_path: Path, decisions: list[dict[str, Any]]) -> None:
    lm = scripted_lm(letter_b)
    tuner = NodeTuner("coela", lm)
    train, held = split_examples(decisions, 4, 2, seed=1)
    tuned = tuner.optimize(train, "labeled", demos=2)
    program = tmp_path / "programs" / "choose.json"
    program.parent.mkdir()
    tuned.save(str(program))
    from coopgraph.cli.optimize import write_tuned_spec

    spec = tmp_path / "coela-tuned.yaml"
    write_tuned_spec(spec, "coela", tuner.node, program)
    loaded = load_spec(spec)
    assert loaded.spec.nodes[tuner.node].program == "programs/choose.json"
    ctx = node_context(loaded, tuner.node, AgentResources(env="cwah", lm=lm))
    assert [d["answer"] for d in ctx.program.predict.demos] == [d["answer"] for d in tuned.predict.demos]
    inputs = {"context": dict(held[0].context), "options": list(held[0].options)}
    in_graph = adapter_for(ctx).format(ctx.program.predict.signature, ctx.program.predict.demos, inputs)
    in_tuner = tuner.adapter.format(tuned.predict.signature, tuned.predict.demos, inputs)
    assert in_graph == in_tuner and len(in_graph) == 2 + 2 * 2


def test_cli_prints_before_and_after_and_writes_program_and_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  decisions: list[dict[str, Any]]) -> None:
    data = tmp_path / "d.jsonl"
    write_jsonl(decisions, data)
    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(letter_b))
    out, spec = tmp_path / "p.json", tmp_path / "tuned.yaml"
    result = CliRunner().invoke(app, ["optimize", "--data", str(data), "-o", str(out), "--optimizer", "labeled",
                                      "--train", "4", "--eval", "6", "--spec-out", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["before"]["n"] == summary["after"]["n"] == 6 and out.exists() and spec.exists()
    assert json.loads(out.read_text())["predict"]["demos"]
    houses = tmp_path / "test-houses.jsonl"
    write_jsonl(decisions[:5], houses)
    again = CliRunner().invoke(app, ["optimize", "--data", str(data), "-o", str(out), "--optimizer", "labeled",
                                     "--train", "4", "--eval", "50", "--eval-data", str(houses), "--json"])
    assert json.loads(again.output)["before"]["n"] == sum(len(d["options"]) >= 2 for d in decisions[:5])


def test_cli_unknown_optimizer_and_missing_data_are_clear_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["optimize", "--data", str(tmp_path / "x"), "-o", "p.json", "--optimizer", "magic"])
    assert bad.exit_code == 2 and "labeled, bootstrap" in bad.output
    missing = runner.invoke(app, ["optimize", "--data", str(tmp_path / "x.jsonl"), "-o", "p.json"])
    assert missing.exit_code == 2 and "coopgraph data decisions" in missing.output


@pytest.mark.parametrize(("line", "problem"), [("{not json", "not a JSON decision point"),
                                                ('{"split": "train"}', "it has no 'id', 'facts', 'options'")])
def test_cli_names_the_file_and_line_of_a_point_it_cannot_use_before_starting_a_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decisions: list[dict[str, Any]], line: str,
        problem: str) -> None:
    data = tmp_path / "d.jsonl"
    write_jsonl(decisions[:3], data)
    data.write_text(data.read_text() + line + "\n")
    started: list[str] = []
    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: started.append("lm"))
    result = CliRunner().invoke(app, ["optimize", "--data", str(data), "-o", str(tmp_path / "p.json")])
    assert result.exit_code == 2 and f"{data}:4: " in result.output and problem in result.output
    assert "Traceback" not in result.output and not started and not (tmp_path / "p.json").exists()
