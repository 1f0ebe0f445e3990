"""Loading question files: LLM-Co's full set scores 192 of its 198 questions, each one left out is named with its
defect, and a malformed file is refused with its file, line and problem."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from coopgraph.evals.reasoning.questions import COLUMNS, QuestionFileError, load_questions
from coopgraph.evals.reasoning.sets import set_path

FULL = set_path("full")
SHARED_FULL = Path(__file__).resolve().parents[3] / "shared" / "data" / "llmco_tom" / "single_turn_trials.csv"


def ec_row(options: str, ordinal: str) -> dict[str, str]:
    """A row holding only an EC question with these option lines and this answer ordinal."""
    row = dict.fromkeys(COLUMNS, "")
    row.update({"EC Question": f"How many?\nAvailable Answers:\n{options}\n", "EC Answer Ordinal": ordinal,
                "EC Directive": "Answer: X.", "Game Description": "a game", "Game": "G"})
    return row


def write_rows(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_full_set_scores_192_of_198_and_names_each_question_left_out() -> None:
    questions, skipped = load_questions(FULL)
    assert len(questions) == 192 and len(questions) + len(skipped) == 198
    assert {q.kind: sum(x.kind == q.kind for x in questions) for q in questions} == {"EC": 62, "TOM": 65, "JP": 65}
    left_out = {s.id: (s.line, s.reason) for s in skipped}
    assert left_out == {
        "11/EC": (2856, "option letter B listed twice (A, B, B, C): a reply of B names no single option"),
        "13/EC": (3438, "option letter D listed twice (A, B, C, D, D): a reply of D names no single option"),
        "36/TOM": (8514, "option letter B listed twice (A, B, B, D, E, F, G, H): a reply of B names no single "
                         "option"),
        "51/EC": (9827, "answer C is not among its options (A, B)"),
        "54/JP": (10166, "option letter B listed twice (A, B, B): a reply of B names no single option"),
        "57/EC": (10492, "answer D is not among its options (A, B, C)"),
    }
    assert str(skipped[3]) == f"{FULL}:9827: EC question of row 51 left out: answer C is not among its options (A, B)"


def test_a_column_named_twice_is_read_from_the_first_as_llmco_reads_it(tmp_path: Path) -> None:
    """LLM-Co's full set has two `Game Description` columns (with the same text); pandas reads the first."""
    row = ec_row("A. yes\nB. no", "B")
    path = tmp_path / "q.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([*COLUMNS, "Game Description"])
        writer.writerow([*(row[c] for c in COLUMNS), "the second copy"])
    [question], _ = load_questions(path)
    assert question.description == "a game"


def test_the_full_set_has_three_games_and_lettered_options_with_gaps() -> None:
    questions, _ = load_questions(FULL)
    assert {q.game for q in questions} == {"Hanabi", "Overcooked", "CollabGames"}
    assert all(q.description for q in questions)
    gapped = next(q for q in questions if q.id == "55/JP")  # letters A, B, D: a gap is no defect
    assert gapped.letters == ("A", "B", "D") and gapped.chance(faithful=True) == pytest.approx(1 / 3)


def test_the_shipped_full_set_is_the_published_file_unchanged() -> None:
    if not SHARED_FULL.is_file():
        pytest.skip("../shared is not on this machine")
    assert FULL.read_bytes() == SHARED_FULL.read_bytes()


@pytest.mark.parametrize(("options", "ordinal", "reason"), [
    ("A. one\nB. two\nB. three", "A", "option letter B listed twice (A, B, B): a reply of B names no single option"),
    ("A. one\nB. two", "C", "answer C is not among its options (A, B)"),
    ("A. one\nB. two", "A,E", "answer E is not among its options (A, B)"),
    ("A. one\nB. two", "", "no answer letter"),
    ("one\ntwo", "A", "no lettered options (`A. ...` lines after `Available Answers:` or `Available Actions:`)"),
])
def test_each_defect_leaves_its_question_out_with_the_reason(tmp_path: Path, options: str, ordinal: str,
                                                             reason: str) -> None:
    path = write_rows(tmp_path / "q.csv", [ec_row("A. yes\nB. no", "B"), ec_row(options, ordinal)])
    questions, skipped = load_questions(path)
    assert [q.id for q in questions] == ["1/EC"]
    [bad] = skipped
    assert (bad.id, bad.line, bad.reason) == ("2/EC", 7, reason)
    assert bad.as_dict() == {"id": "2/EC", "row": 2, "line": 7, "kind": "EC", "reason": reason}


def test_a_row_with_a_stray_field_names_file_and_line(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "q.csv", [ec_row("A. yes\nB. no", "B")])
    with path.open("a", encoding="utf-8") as fh:
        fh.write(",".join(["x"] * (len(COLUMNS) + 1)) + "\n")
    with pytest.raises(QuestionFileError) as caught:
        load_questions(path)
    assert str(caught.value) == f"{path}:7: row 2 has 21 fields, the header 20 (a stray comma or quote?)"


def test_a_quote_left_open_names_file_and_line(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "q.csv", [ec_row("A. yes\nB. no", "B")])
    with path.open("a", encoding="utf-8") as fh:
        fh.write('"unclosed,' + ",".join(["x"] * 19) + "\n")
    with pytest.raises(QuestionFileError) as caught:
        load_questions(path)
    assert str(caught.value).startswith(f"{path}:7: not readable as CSV (")


def test_text_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_bytes(",".join(COLUMNS).encode() + b"\n\xff\xfe" + b"," * 19 + b"\n")
    with pytest.raises(QuestionFileError) as caught:
        load_questions(path)
    assert str(caught.value).startswith(f"{path}:") and "not UTF-8 text" in str(caught.value)


def test_missing_columns_name_the_file_and_the_header_line(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("EC Question,EC Answer\nx,y\n", encoding="utf-8")
    with pytest.raises(QuestionFileError, match=rf"^{path}:1: missing columns EC Answer Ordinal, JP Question"):
        load_questions(path)


def test_blank_lines_between_rows_are_not_rows(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "q.csv", [ec_row("A. yes\nB. no", "B")])
    with path.open("a", encoding="utf-8", newline="") as fh:
        fh.write("\r\n")
        csv.DictWriter(fh, fieldnames=list(COLUMNS)).writerow(ec_row("A. yes\nB. no", "A"))
    questions, skipped = load_questions(path)
    assert [q.id for q in questions] == ["1/EC", "2/EC"] and not skipped
