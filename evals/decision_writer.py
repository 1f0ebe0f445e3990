"""Writing decision points as JSON Lines one episode at a time, so a long run that is stopped keeps what it finished.

A DAgger roll-in asks a model at every choice and may run for hours; `coopgraph data decisions` writes each
episode's points as soon as that episode ends and flushes them to the file, and counts what it wrote for the
summary it prints at the end.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

#: `oracle_match` values that give a point an oracle label.
ORACLE_LABELLED = ("exact", "check", "explore")


class DecisionWriter:
    """A JSONL file of decision points, written in batches (`write`), each batch flushed before `write` returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.count = 0
        self.episodes: set[str] = set()
        self.splits: Counter[str] = Counter()
        self.matches: Counter[str] = Counter()
        self._out: IO[str] | None = None

    def __enter__(self) -> DecisionWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._out = self.path.open("w", encoding="utf-8")
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def write(self, records: Iterable[dict[str, Any]]) -> int:
        """Append `records` (one episode's, say), flush them to the file, and return how many there were."""
        if self._out is None:
            raise RuntimeError("open the DecisionWriter (`with DecisionWriter(path) as writer:`) before writing")
        written = 0
        for record in records:
            self._out.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
            self.episodes.add(record["episode"])
            self.splits[record["split"]] += 1
            self.matches[record["oracle_match"]] += 1
        self._out.flush()
        self.count += written
        return written

    def summary(self) -> dict[str, Any]:
        """Counts of what was written: points, episodes, points per split and per oracle mapping."""
        labelled = sum(n for kind, n in self.matches.items() if kind in ORACLE_LABELLED)
        return {"path": str(self.path), "decisions": self.count, "episodes": len(self.episodes),
                "splits": dict(sorted(self.splits.items())), "oracle_labelled": labelled,
                "oracle_match": dict(sorted(self.matches.items()))}
