"""What a round's decision points are cases of: per situation, how many distinct points, what the expert chose,
and where a learner drove, how often it chose the same.

A planner that agrees with its expert on most points can still fail a layout on a situation the data barely holds
(round 3 of the kitchen planner: no pot needs an onion, yet it fetches one). Reading the table before training
shows what a mix covers; reading it on a roll-in shows where the planner goes wrong. Points are grouped by the
`situation` the recorder wrote (Overcooked: what the cook holds and what the kitchen needs of it) and labels by
their verb and kind of place (`pick up onion from o0.` and `... o1.` are both `pick up onion from o`).

Run: `python -m coopgraph.evals.distill.situations FILE [FILE ...] [--split train]`
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coopgraph.evals.decision_reader import DecisionFileError, numbered_points
from coopgraph.evals.distill.mix import MixError, distinct

_NUMBER = re.compile(r"\b([a-z])\d+\.$")


def verb(action: str) -> str:
    """The action with the kind of place it names but not the place: `place onion on k3.` -> `place onion on k`."""
    return _NUMBER.sub(r"\1", action)


@dataclass
class SituationRow:
    """One situation's points: distinct ones, the expert's labels by verb, the learner's agreement."""

    points: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    learner: int = 0
    agreed: int = 0


def tally(points: list[dict[str, Any]]) -> dict[str, SituationRow]:
    """Rows by situation over distinct points (a learner's point agrees when it followed the expert's label)."""
    rows: dict[str, SituationRow] = defaultdict(SituationRow)
    for point in distinct(points):
        row = rows[point["situation"]]
        row.points += 1
        row.labels[verb(point["expert_choice"])] += 1
        if point.get("rollin") == "learner":
            row.learner += 1
            row.agreed += point.get("followed") == point["expert_choice"]
    return dict(rows)


def read(paths: list[Path], split: str | None) -> list[dict[str, Any]]:
    """Every point of these files (of one split, when given); a point without a situation is named by file and
    line."""
    points = []
    for path in paths:
        if not path.exists():
            raise MixError(f"{path}: no such decisions file")
        for number, point in numbered_points(path):
            if not isinstance(point.get("situation"), str):
                raise MixError(f"{path}:{number}: this decision point has no `situation` (recorded before points "
                               "carried one); record it again")
            if split is None or point.get("split") == split:
                points.append(point)
    return points


def table(rows: dict[str, SituationRow], top: int = 3) -> str:
    """The rows as a markdown table, commonest situation first."""
    lines = ["| situation | points | expert's labels | learner's points | learner agreed |",
             "| --- | ---: | --- | ---: | ---: |"]
    for situation, row in sorted(rows.items(), key=lambda item: (-item[1].points, item[0])):
        labels = ", ".join(f"{name} {n}" for name, n in row.labels.most_common(top))
        agreed = f"{row.agreed / row.learner:.2f}" if row.learner else "–"
        lines.append(f"| {situation} | {row.points} | {labels} | {row.learner} | {agreed} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="decision files (`coopgraph data decisions`) or a mix")
    parser.add_argument("--split", default=None, help="only this split (train, validation, test)")
    args = parser.parse_args(argv)
    try:
        rows = tally(read(args.files, args.split))
    except DecisionFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
