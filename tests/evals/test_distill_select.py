"""A slice of a recording: the distinct points every filter keeps, in file order; a bad file is named, not raised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.distill.select import Slice, main, selected


def point(n: int, label: str, state: str, *, me: str = "Alice", options: tuple[str, ...] = ("wait.", "move away."),
          situation: str = "holding soup; no serving spot in reach") -> dict[str, Any]:
    return {"id": f"overcooked/x/{me.lower()}/{n:03d}", "split": "train", "options": list(options),
            "expert_choice": label, "situation": situation,
            "facts": {"agent_name": me, "partner_names": ["Bob" if me == "Alice" else "Alice"], "progress": state}}


POINTS = [
    point(0, "wait.", "c0 is blocked by Alice."),
    point(1, "wait.", "c0 is blocked by Alice."),  # the same prompt and label: one point
    point(2, "move away.", "o0 is blocked by Alice."),
    point(3, "wait.", "c0 is blocked by Alice.", me="Bob"),  # Bob's line says Alice blocks him: not Bob blocking
    point(4, "wait.", "d0 is 2 units away."),
    point(5, "place soup for delivery in d0.", "d0 is blocked by Bob.", options=("place soup for delivery in d0.",
                                                                                  "wait.", "move away."),
          situation="holding soup; a serving spot in reach"),
]


def test_the_filters_keep_what_they_name_once_each_in_file_order() -> None:
    def ids(which: Slice) -> list[int]:
        return [int(p["id"][-3:]) for p in selected(POINTS, which)]

    assert ids(Slice()) == [0, 2, 3, 4, 5]
    assert ids(Slice(labels=("wait.",), contains=("blocked by {me}",))) == [0]
    assert ids(Slice(labels=("wait.",), lacks=("blocked by",))) == [4]
    assert ids(Slice(idle_only=True, situations=("holding soup; a serving",))) == []
    assert ids(Slice(situations=("holding soup; a serving",), contains=("blocked by {partner}",))) == [5]
    assert ids(Slice(labels=("move away.", "place soup for delivery in d0."))) == [2, 5]


def test_the_command_writes_the_slice_and_names_a_missing_file_or_a_bad_line(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "perturbed.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in POINTS))
    out = tmp_path / "slice.jsonl"
    assert main([str(source), "--idle-only", "--label", "wait.", "--contains", "blocked by {me}", "-o", str(out)]) == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["overcooked/x/alice/000"]
    assert "wrote 1 distinct points" in capsys.readouterr().out

    assert main([str(tmp_path / "nowhere.jsonl"), "-o", str(tmp_path / "b.jsonl")]) == 2
    assert f"no decisions file {tmp_path / 'nowhere.jsonl'}" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(POINTS[0]) + "\n" + json.dumps({"id": "x"}) + "\n")
    assert main([str(bad), "-o", str(tmp_path / "c.jsonl")]) == 2
    assert f"{bad}:2: not a decision point" in capsys.readouterr().err
    assert not (tmp_path / "b.jsonl").exists() and not (tmp_path / "c.jsonl").exists()
