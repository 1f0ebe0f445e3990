"""`coopgraph eval reasoning`: LLM-Co's question files loaded, asked as LLM-Co asks, scored both ways, resumable."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.reasoning.asking import ask, load_program
from coopgraph.evals.reasoning.questions import COLUMNS, Question, load_questions
from coopgraph.evals.reasoning.scoring import read_faithful, read_fixed
from coopgraph.record.trace_file import read_events
from coopgraph.testing import scripted_lm
from tests.evals.report_cells import check_cells

SAMPLE = Path(__file__).resolve().parents[2] / "evals" / "reasoning" / "data" / "llmco_sample.csv"
FULL = SAMPLE.with_name("llmco_full.csv")
SHARED_SAMPLE = Path("/work/shared/data/llmco_tom/sample.csv")
runner = CliRunner()


def question(ordinal: str, letters: str = "ABCDEF") -> Question:
    options = tuple(f"option {x}" for x in letters)
    return Question(id="1/EC", row=1, line=2, kind="EC", game="G", directive="d", description="g",
                    text="q", letters=tuple(letters), options=options, ordinal=ordinal, answer="")


def write_csv(path: Path, rows: list[dict[str, str]], columns: tuple[str, ...] = COLUMNS) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def sample_rows() -> list[dict[str, str]]:
    with SAMPLE.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def use_model(monkeypatch: pytest.MonkeyPatch, script: Any) -> list[Any]:
    """Every trial's LM is a scripted one writing to the trial's tracer; returns the settings each was built with."""
    made: list[Any] = []

    def make_lm(setting: Any = None, **kwargs: Any) -> Any:
        made.append(setting)
        return scripted_lm(script, tracer=kwargs.get("tracer"))

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", make_lm)
    return made


def test_the_sample_loads_eighteen_questions_with_their_options_and_chance() -> None:
    questions, skipped = load_questions(SAMPLE)
    assert len(questions) == 18 and not skipped
    assert [q.kind for q in questions[:3]] == ["EC", "TOM", "JP"]
    jp = questions[2]
    assert jp.game == "Hanabi" and jp.letters[-1] == "Q" and jp.options[14] == "Reveal Bob's rank 1 cards."
    assert jp.ordinal == "O" and jp.chance(faithful=True) == pytest.approx(1 / 17)
    assert questions[3].line == 250  # rows span many lines: errors name the line a row starts on


def test_both_scorers_on_multi_letter_answers() -> None:
    both = question("A,C")
    assert read_faithful(both, "Answer: C. option C").correct and read_fixed(both, "Answer: C").correct
    spaced = question("D, F")  # LLM-Co's quirk: ' F' never matches
    assert not read_faithful(spaced, "Explanation: x\nAnswer: F. option F").correct
    assert read_fixed(spaced, "Explanation: x\nAnswer: F. option F").correct
    assert read_faithful(spaced, "Answer: D) option D").correct
    assert spaced.chance(faithful=True) == pytest.approx(1 / 6)
    assert spaced.chance(faithful=False) == pytest.approx(2 / 6)


def test_faithful_reads_action_before_answer_and_falls_back_to_the_closest_option() -> None:
    q = question("B", "ABC")
    assert read_faithful(q, "Answer: A. option A\nAction: B. option B").letter == "B"
    fuzzy = read_faithful(q, "Answer: option c")
    assert fuzzy.letter == "C" and fuzzy.how == "fuzzy"
    assert read_fixed(q, "Answer: I cannot tell").letter is None
    assert read_faithful(q, "").letter is None


def test_prompt_is_directive_description_got_it_then_the_question() -> None:
    questions, _ = load_questions(SAMPLE)
    lm = scripted_lm(["Explanation: none\nAction: O. Reveal Bob's rank 1 cards."])
    asked = ask(load_program(), questions[2], lm)
    roles = [m["role"] for m in asked.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert asked.messages[0]["content"] == questions[2].directive
    assert asked.messages[1]["content"] == questions[2].description and asked.messages[2]["content"] == "Got it!"
    assert asked.messages[3]["content"] == questions[2].text  # nothing appended: the directive states the format
    assert read_faithful(questions[2], asked.reply).correct


def test_question_text_is_data_not_a_template(tmp_path: Path) -> None:
    rows = sample_rows()[:1]
    rows[0]["EC Question"] = rows[0]["EC Question"].replace("Have any", "{{ 7*7 }} Have any")
    questions, _ = load_questions(write_csv(tmp_path / "q.csv", rows))
    asked = ask(load_program(), questions[0], scripted_lm(["Answer: B. No."]))
    assert "{{ 7*7 }} Have any" in asked.messages[-1]["content"]


def test_missing_columns_are_named_without_a_traceback(tmp_path: Path) -> None:
    kept = tuple(c for c in COLUMNS if c not in ("TOM Directive", "Map"))
    bad = write_csv(tmp_path / "bad.csv", sample_rows()[:1], kept)
    result = runner.invoke(app, ["eval", "reasoning", str(bad), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert str(bad) in result.output and "TOM Directive, Map" in result.output


def test_an_answer_outside_the_options_is_reported_and_skipped(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rows = sample_rows()[2:3]
    rows[0]["EC Answer Ordinal"] = "Z"
    path = write_csv(tmp_path / "q.csv", rows)
    use_model(monkeypatch, ["Answer: B. 1"])
    result = runner.invoke(app, ["eval", "reasoning", str(path), "--out", str(tmp_path / "out"), "--trials", "1",
                                 "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["questions"] == 2 and set(payload["types"]) == {"TOM", "JP"}
    assert payload["skipped"] == [{"id": "1/EC", "row": 1, "line": 2, "kind": "EC",
                                   "reason": "answer Z is not among its options (A, B, C, D)"}]
    assert payload["in_file"] == 3 and payload["scored_in_file"] == 2 and payload["set"] is None
    text = runner.invoke(app, ["eval", "reasoning", str(path), "--out", str(tmp_path / "out"), "--trials", "1"])
    assert f"{path}:2: EC question of row 1 left out: answer Z is not among" in text.stderr
    assert f"{path}: 2 of 3 questions scored, 1 left out (above)" in text.stderr


@pytest.mark.parametrize("named", [[], ["full"]])
def test_the_full_set_is_the_default_and_names_what_it_leaves_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  named: list[str]) -> None:
    use_model(monkeypatch, ["Answer: A."])
    result = runner.invoke(app, ["eval", "reasoning", *named, "--out", str(tmp_path), "--trials", "1", "--limit", "3",
                                 "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["set"] == "full" and payload["suite"] == "reasoning-llmco_full"
    assert (payload["in_file"], payload["scored_in_file"], payload["questions"]) == (198, 192, 3)
    assert set(payload["types"]) == {"EC", "TOM", "JP"}  # a limit spreads over the types
    assert [s["id"] for s in payload["skipped"]] == ["11/EC", "13/EC", "36/TOM", "51/EC", "54/JP", "57/EC"]
    assert all(s["reason"] for s in payload["skipped"])


def test_the_sample_keeps_its_suite_when_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_model(monkeypatch, ["Answer: A."])
    result = runner.invoke(app, ["eval", "reasoning", "sample", "--out", str(tmp_path), "--trials", "1", "--limit",
                                 "2", "--json"])
    payload = json.loads(result.stdout)
    assert payload["suite"] == "reasoning-llmco_sample" and Path(payload["csv"]).name == SAMPLE.name
    assert (payload["in_file"], payload["skipped"]) == (18, [])


def test_a_limit_spreads_over_every_type_and_game_and_grows_by_adding() -> None:
    from coopgraph.evals.reasoning.run import spread

    questions, _ = load_questions(FULL)
    few, more = spread(questions, 9), spread(questions, 45)
    assert sorted((q.kind, q.game) for q in few) == sorted(
        (kind, game) for kind in ("EC", "TOM", "JP") for game in ("Hanabi", "Overcooked", "CollabGames"))
    assert {q.id for q in few} <= {q.id for q in more} and len(more) == 45
    assert [q.line for q in more] == sorted(q.line for q in more)  # file order kept
    assert spread(questions, None) == questions == spread(questions, 500)


def test_questions_sharing_a_prompt_prefix_are_asked_one_after_another() -> None:
    from coopgraph.evals.reasoning.run import prefix_order

    questions, _ = load_questions(FULL)
    ordered = prefix_order(questions)
    assert sorted(q.id for q in ordered) == sorted(q.id for q in questions)
    openings = [(q.directive, q.description) for q in ordered]
    runs = [o for i, o in enumerate(openings) if i == 0 or o != openings[i - 1]]
    assert len(runs) == len(set(openings)) == 45  # each shared opening asked in one run
    assert ordered[0] == questions[0]


def test_sample_scores_eighteen_questions_with_chance_beside_each(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    made = use_model(monkeypatch, ["Explanation: it is B\nAnswer: B."])
    result = runner.invoke(app, ["eval", "reasoning", str(SAMPLE), "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["questions"] == 18 and payload["answers"] == 54 and payload["trials"] == 3
    assert [s.seed for s in made] == [0, 1, 2]  # one seed per trial
    # B is right for 5 EC questions of 6, 2 TOM (rows 3, 5) and 1 JP (row 5)
    assert payload["types"]["EC"]["accuracy"] == pytest.approx(5 / 6, abs=1e-4)
    assert payload["types"]["TOM"]["accuracy"] == pytest.approx(2 / 6, abs=1e-4)
    assert payload["types"]["JP"]["accuracy"] == pytest.approx(1 / 6, abs=1e-4)
    assert payload["types"]["JP"]["chance"] == pytest.approx(0.1591, abs=1e-4)
    assert payload["games"]["Hanabi"]["questions"] == 6 and payload["overall"]["chance"] is not None
    assert payload["overall"]["std"] == 0.0


def test_the_shared_sample_scores_eighteen_questions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not SHARED_SAMPLE.is_file():
        pytest.skip("/work/shared is not on this machine")
    use_model(monkeypatch, ["Answer: A."])
    result = runner.invoke(app, ["eval", "reasoning", str(SHARED_SAMPLE), "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["questions"] == 18


def test_an_interrupted_run_resumes_without_asking_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        asked.append(str(messages[-1].content))
        if len(asked) == 5:
            raise KeyboardInterrupt
        return "Explanation: x\nAnswer: B.\nAction: B."  # both labels: one call per question

    use_model(monkeypatch, model)
    args = ["eval", "reasoning", str(SAMPLE), "--out", str(tmp_path), "--trials", "2", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 130 and json.loads(first.stdout)["answers"] == 4
    second = runner.invoke(app, args)
    payload = json.loads(second.stdout)
    assert second.exit_code == 0 and payload["skipped_done"] == 4 and payload["asked"] == 32
    assert payload["answers"] == 36 and len(asked) == 5 + 32


def test_unparseable_answers_count_wrong_and_stay_in_the_trace(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    use_model(monkeypatch, ["Answer: hmm, hard to say"])
    result = runner.invoke(app, ["eval", "reasoning", str(SAMPLE), "--out", str(tmp_path), "--trials", "1",
                                 "--limit", "3", "--scorer", "fixed", "--json"])
    payload = json.loads(result.stdout)
    assert payload["questions"] == 3 and payload["unreadable"] == 3 and payload["overall"]["accuracy"] == 0.0
    [trace] = (tmp_path / "traces").rglob("*.jsonl")
    answers = [e for e in read_events(trace) if e["type"] == "reasoning_answer"]
    assert len(answers) == 3 and all(not a["parsed"] and a["fixed"]["letter"] is None for a in answers)
    assert answers[0]["reply"] == "Answer: hmm, hard to say" and answers[0]["prompt"][0]["role"] == "system"
    assert any(e["type"] == "llm_call" for e in read_events(trace))


def test_report_prints_accuracy_beside_chance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_model(monkeypatch, ["Answer: B."])
    args = ["eval", "reasoning", str(SAMPLE), "--out", str(tmp_path), "--trials", "2"]
    assert runner.invoke(app, args).exit_code == 0
    report = runner.invoke(app, ["report", str(tmp_path)])
    assert report.exit_code == 0, report.output
    assert "accuracy per question type and game, beside chance" in report.stdout
    assert "| EC | 6 | 83% [58%, 100%] (n=12) | 36% |" in report.stdout and "average steps" not in report.stdout
    data = json.loads(runner.invoke(app, ["report", str(tmp_path), "--json"]).stdout)
    assert [t["name"] for t in data["tables"]] == ["accuracy", "cost"] and check_cells(data["tables"]) > 10
    ec = next(r for r in data["tables"][0]["rows"] if r["group"] == "EC")
    assert ec["n"] == 6 and ec["faithful"]["n"] == 12 and ec["faithful"]["ci95"][1] == 1.0


def test_a_profile_that_gives_no_explanation_is_held_to_the_answer_line() -> None:
    """A distilled planner declares it answers with no reasoning: the question's grammar then asks for the answer at
    once (no free explanation to ramble in up to the token cap); a general model keeps LLM-Co's explanation."""
    from coopgraph.evals.reasoning.asking import declared_reasoning_max, reasoning_adapter
    from coopgraph.llm.settings import parse_setting

    questions, _ = load_questions(SAMPLE)
    given = {"context": {"directive": questions[0].directive}, "options": list(questions[0].option_lines)}
    distilled = scripted_lm(["Answer: B. No."])
    distilled.settings_public = parse_setting("local-coop").public()
    assert declared_reasoning_max(distilled) == 0 and declared_reasoning_max(scripted_lm([])) is None
    terse = reasoning_adapter(declared_reasoning_max(distilled)).constraint_for(given)
    free = reasoning_adapter(None).constraint_for(given)
    assert terse is not None and free is not None
    assert (terse.free_reasoning, terse.reasoning_chars) == (False, 0)
    assert (free.free_reasoning, free.reasoning_chars) == (True, 400)
