"""Decision points are written a batch at a time and are on disk as soon as `write` returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.evals.decision_writer import DecisionWriter
from coopgraph.evals.decisions import read_jsonl, write_jsonl


def _points(episode: str, split: str, matches: list[str]) -> list[dict[str, str]]:
    return [{"episode": episode, "split": split, "oracle_match": match} for match in matches]


def test_each_batch_is_on_disk_before_the_next_is_written(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "points.jsonl"
    with DecisionWriter(path) as writer:
        assert writer.write(_points("a", "train", ["exact", "none"])) == 2
        assert len(read_jsonl(path)) == 2  # flushed while the file is still open
        writer.write(_points("b", "test", ["check"]))
        assert len(read_jsonl(path)) == 3
    assert writer.summary() == {"path": str(path), "decisions": 3, "episodes": 2, "splits": {"test": 1, "train": 2},
                                "oracle_labelled": 2, "oracle_match": {"check": 1, "exact": 1, "none": 1}}


def test_write_jsonl_summarises_as_before(tmp_path: Path) -> None:
    path = tmp_path / "points.jsonl"
    summary = write_jsonl(iter(_points("a", "validation", ["explore", "unmapped"])), path)
    assert summary["decisions"] == 2 and summary["oracle_labelled"] == 1 and summary["splits"] == {"validation": 2}


def test_writing_before_opening_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="open the DecisionWriter"):
        DecisionWriter(tmp_path / "x.jsonl").write([])
