"""A DAgger round's mix: one point per distinct prompt and label, a seeded draw per file, bad sources named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.distill.mix import MixError, main, mix


def point(n: int, label: str = "wait.", split: str = "train", state: str | None = None) -> dict[str, Any]:
    content = state if state is not None else f"state {n}"
    return {"id": f"overcooked/x/alice/{n:03d}", "split": split, "options": ["wait.", "move away."],
            "expert_choice": label, "messages": [{"role": "user", "content": content}], "facts": {"step": n}}


def write(path: Path, points: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in points))
    return path


def test_a_loop_recorded_many_times_is_one_point_and_a_different_label_is_another(tmp_path: Path) -> None:
    loop = [point(n, state="stuck by the pot") for n in range(50)]
    source = write(tmp_path / "dagger.jsonl", [*loop, point(99, label="move away.", state="stuck by the pot")])
    points, report = mix([f"{source}:all"], [])
    assert [p["id"] for p in points] == ["overcooked/x/alice/000", "overcooked/x/alice/099"]
    assert report == [f"{source} (train): 2 distinct points"]


def test_each_file_gives_its_seeded_count_from_its_split(tmp_path: Path) -> None:
    source = write(tmp_path / "expert.jsonl", [point(n) for n in range(40)] + [point(100 + n, split="validation")
                                                                             for n in range(10)])
    first, _ = mix([f"{source}:5"], [f"{source}:3"], seed=1)
    again, _ = mix([f"{source}:5"], [f"{source}:3"], seed=1)
    assert first == again and len(first) == 8
    assert [p["split"] for p in first] == ["train"] * 5 + ["validation"] * 3


@pytest.mark.parametrize("source, problem", [("nofile.jsonl:3", "no such decisions file"),
                                             ("{file}", "expected FILE:N"), ("{file}:many", "a number or 'all'")])
def test_bad_sources_are_named(tmp_path: Path, source: str, problem: str) -> None:
    good = write(tmp_path / "a.jsonl", [point(1)])
    with pytest.raises(MixError, match=problem):
        mix([source.format(file=good) if "{" in source else str(tmp_path / source)], [])


def test_a_broken_line_is_reported_with_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "b.jsonl"
    broken.write_text(json.dumps(point(1)) + "\n{not json\n")
    assert main([f"{broken}:all", "-o", str(tmp_path / "out.jsonl")]) == 2
    assert f"{broken}:2: not a JSON decision point" in capsys.readouterr().err


def test_learner_sources_give_only_the_states_the_learner_reached(tmp_path: Path) -> None:
    rollin = [{**point(n), "rollin": "learner" if n % 2 else "expert"} for n in range(10)]
    source = write(tmp_path / "dagger.jsonl", rollin)
    points, report = mix([], [], learner=[f"{source}:all"])
    assert {p["rollin"] for p in points} == {"learner"} and len(points) == 5
    assert report == [f"{source} (train, learner states): 5 distinct points"]
