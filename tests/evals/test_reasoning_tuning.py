"""`coopgraph optimize reasoning`: demos tuned on the train split change held-out accuracy, and the program loads
in `coopgraph eval reasoning --program`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.reasoning.asking import inputs, load_program, reasoning_adapter
from coopgraph.evals.reasoning.questions import Question, load_questions
from coopgraph.evals.reasoning.tuning import example, fixed_metric, measure, split_questions, tune
from coopgraph.testing import scripted_lm

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "reasoning" / "data" / "coopgraph_reasoning.csv"
OPENING = 3  # directive, game description, "Got it!": more turns before the question are demos


@pytest.fixture(scope="module")
def questions() -> list[Question]:
    return load_questions(SHIPPED)[0]


def right_only_with_demos(questions: list[Question]) -> Any:
    """A model that knows every answer but gives it only when the prompt shows a worked example."""
    by_text = {q.text: q for q in questions}

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        question = by_text[messages[-1].content]
        right = [line for letter, line in zip(question.letters, question.option_lines, strict=True)
                 if letter in question.accepted(faithful=False)]
        wrong = [line for line in question.option_lines if line not in right]
        return f"Explanation: looked.\nAnswer: {right[0] if len(messages) > OPENING + 1 else wrong[0]}"

    return reply


def test_split_keeps_train_and_held_out_apart_and_is_seeded(questions: list[Question]) -> None:
    train, held = split_questions(questions, 10, 12, seed=0)
    assert len(train) == 10 and len(held) == 12
    assert {q.split for q in train} == {"train"} and {q.split for q in held} == {"test"}
    assert split_questions(questions, 10, 12, seed=0) == (train, held)
    assert split_questions(questions, 10, 12, seed=1) != (train, held)


def test_examples_are_labelled_with_an_accepted_option_and_the_metric_is_the_fixed_scorer(
        questions: list[Question]) -> None:
    question = questions[0]
    made = example(question)
    assert set(made.inputs().keys()) == {"context", "options"} and made.answer in question.option_lines
    letter = made.answer.split(".")[0]
    assert letter in question.accepted(faithful=False)
    metric = fixed_metric([question])
    wrong = next(line for line in question.option_lines if not line.startswith(letter))
    assert metric(made, type("P", (), {"raw": f"Explanation: x\nAnswer: {made.answer}"})())
    assert not metric(made, type("P", (), {"raw": f"Answer: {wrong}"})())
    assert not metric(made, type("P", (), {"raw": "no idea"})())


def test_demos_render_in_their_own_reply_form(questions: list[Question]) -> None:
    jp = next(q for q in questions if q.kind == "JP")
    ec = next(q for q in questions if q.kind == "EC")
    program = load_program()
    program.predict.demos = [example(jp).toDict() | {"reasoning": "nearest"}]
    messages = reasoning_adapter().format(program.predict.signature, program.predict.demos, inputs(ec))
    assert len(messages) == OPENING + 3 and messages[-1]["content"] == ec.text
    assert messages[OPENING]["content"] == jp.text
    assert messages[OPENING + 1]["content"] == f"nearest\nAction: {example(jp).answer}"  # JP's label, asked in EC
    assert "Pick the listed action" not in messages[0]["content"]  # untuned instructions stay out of the prompt


def test_tuning_with_demos_raises_held_out_accuracy(questions: list[Question]) -> None:
    lm = scripted_lm(right_only_with_demos(questions))
    train, held = split_questions(questions, 6, 9, seed=0)
    program = load_program()
    before = measure(program, held, lm)
    assert before.right == 0 and before.total == 9 and before.unreadable == 0
    for optimizer in ("labeled", "bootstrap"):
        tuned = tune(program, train, optimizer, lm, demos=2)
        assert len(tuned.predict.demos) == 2 and not program.predict.demos
        after = measure(tuned, held, lm).as_dict()
        assert after["accuracy"] == 1.0 and set(after["types"]) <= {"EC", "TOM", "JP"}


def test_cli_reports_before_and_after_and_eval_loads_the_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 questions: list[Question]) -> None:
    monkeypatch.setattr("coopgraph.llm.factory.make_lm",
                        lambda setting=None, **_: scripted_lm(right_only_with_demos(questions)))
    out = tmp_path / "reasoning.json"
    result = CliRunner().invoke(app, ["optimize", "reasoning", str(SHIPPED), "-o", str(out), "--optimizer", "labeled",
                                      "--train", "4", "--eval", "6", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["before"]["n"] == summary["after"]["n"] == 6 and summary["train"] == 4
    assert summary["before"]["accuracy"] == 0.0 and summary["after"]["accuracy"] == 1.0
    assert len(json.loads(out.read_text())["predict"]["demos"]) == 2
    store = tmp_path / "runs"
    asked = CliRunner().invoke(app, ["eval", "reasoning", str(SHIPPED), "--program", str(out), "--limit", "3",
                                     "--trials", "1", "--scorer", "fixed", "--out", str(store), "--json"])
    assert asked.exit_code == 0, asked.output
    assert json.loads(asked.output)["overall"]["accuracy"] == 1.0


def test_cli_reasoning_errors_are_clear(tmp_path: Path) -> None:
    runner = CliRunner()
    no_split = tmp_path / "sample.csv"
    no_split.write_text(SHIPPED.read_text().replace(",train\r\n", ",\r\n").replace(",train\n", ",\n"))
    cases = [(["optimize", "reasoning", "-o", "p.json"], "name a question file"),
             (["optimize", "reasoning", str(tmp_path / "none.csv"), "-o", "p.json"], "no question file"),
             (["optimize", "reasoning", str(SHIPPED), "-o", "p.json", "--optimizer", "magic"], "labeled, bootstrap"),
             (["optimize", "reasoning", str(no_split), "-o", "p.json"], "'train' split"),
             (["optimize", "reasoning", str(SHIPPED), "--data", "d.jsonl", "-o", "p.json"], "takes a question file"),
             (["optimize", "-o", "p.json"], "name the decision points")]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and message in result.output, (args, result.output)
