"""reasoning_rows: LLM-Co's reasoning-set columns, options as `A. ...`, answers consistent with the stated state."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from coopgraph.envs.collab import capture
from coopgraph.envs.collab.capture import CaptureState
from coopgraph.envs.collab.reasoning import COLUMNS, reasoning_rows

SAMPLE = Path(__file__).resolve().parents[4] / "shared" / "data" / "llmco_tom" / "sample.csv"
ROWS = reasoning_rows(seed=3, n=24)


def _options(question: str) -> list[str]:
    return re.findall(r"^([A-Z])\. (.*)$", question, re.MULTILINE)


def test_rows_have_every_column_and_accepted_letters_are_among_the_options() -> None:
    assert len(ROWS) == 24 and all(list(row) == [*COLUMNS, "Split"] for row in ROWS)
    assert [row["Split"] for row in ROWS[:6]] == ["train"] * 4 + ["test"] * 2  # one game map: every third pair
    assert {row["Map"] for row in ROWS} == {"Collab Capture", "Collab Escape"}
    for row in ROWS:
        for kind in ("EC", "JP", "TOM"):
            options = dict(_options(row[f"{kind} Question"]))
            letters = row[f"{kind} Answer Ordinal"].split(",")
            assert letters and all(letter in options for letter in letters)
            assert options[letters[0]] == row[f"{kind} Answer"]
    assert reasoning_rows(seed=3, n=24) == ROWS and reasoning_rows(seed=4, n=24) != ROWS


@pytest.mark.skipif(not SAMPLE.is_file(), reason="the reference sample is not available here")
def test_the_columns_are_those_of_llmcos_reasoning_set() -> None:
    with SAMPLE.open(newline="") as handle:
        assert tuple(next(csv.reader(handle))) == COLUMNS


def _capture_state(text: str) -> tuple[CaptureState, int]:
    me, mine, partner, thief = re.match(r"I \((\w+)\) am in room (\d+)\. \w+ is in room (\d+)\. The thief is in "
                                        r"room (\d+)\.", text).groups()  # type: ignore[union-attr]
    doors = tuple(((int(a), int(b)), state == "open") for a, b, state in
                  re.findall(r"door between room (\d) and room (\d) is (open|closed)", text))
    index = 0 if me == "Alice" else 1
    rooms = (int(mine), int(partner)) if index == 0 else (int(partner), int(mine))
    return CaptureState(rooms, int(thief), doors), index


def test_capture_answers_follow_from_the_state_the_question_states() -> None:
    checked = 0
    for row in (r for r in ROWS if r["Map"] == "Collab Capture"):
        state, me = _capture_state(row["State"])
        if "reach the thief" in row["EC Question"]:
            reachable = capture.moves_apart(state, state.players[me], state.thief) != float("inf")
            assert row["EC Answer"] == ("Yes" if reachable else "No")
            checked += 1
        if "both stay" in row["TOM Question"]:
            assert row["TOM Answer"] == f"Room {capture.thief_plan(state, state.players)}"
            checked += 1
        jp = dict(_options(row["JP Question"]))
        assert all(jp[letter].startswith(("Stay", "Move to room", "Press button")) for letter in jp)
    assert checked >= 3


def test_escape_answers_follow_from_the_state_the_question_states() -> None:
    checked = 0
    for row in (r for r in ROWS if r["Map"] == "Collab Escape"):
        if "killer move to" in row["TOM Question"]:
            chased = re.search(r"go next to the room (\w+) is in", row["State"]).group(1)  # type: ignore[union-attr]
            room = re.search(rf"{chased}\)? (?:am|is) in room (\d+)", row["State"]).group(1)  # type: ignore[union-attr]
            assert row["TOM Answer"] == f"Room {room}"
            checked += 1
        if "fixes does the generator" in row["EC Question"]:
            here = re.match(r"I \(\w+\) am in room (\d+)", row["State"]).group(1)  # type: ignore[union-attr]
            stated = re.search(rf"generator in room {here} (is repaired|needs (\d) more)", row["State"])
            assert stated is not None
            assert row["EC Answer"] == ("0" if stated.group(1) == "is repaired" else stated.group(2))
            checked += 1
    assert checked >= 2
