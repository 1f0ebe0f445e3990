"""One slice of a recording as its own decisions file, so a round's mix can draw a rare kind of point by name.

A perturbed run on the 47 training kitchens records some 13,000 points; a round may need only the few dozen where
the planner holds a soup and stands on the pot its partner needs. The mix draws from whole files, so this writes
the distinct points (one per `mix.point_key`, in file order) that pass every filter given: the expert's label,
the recorder's `situation`, a list of `wait.` and `move away.` alone, and text the rendered state contains or
lacks, where `{me}` and `{partner}` stand for the point's cook and its partner (Overcooked: `blocked by {me}`
says this cook stands on a place the partner would go to).

Run: `python -m coopgraph.evals.distill.select FILE [FILE ...] -o SLICE.jsonl [--label L] [--situation PREFIX]
[--idle-only] [--contains TEXT] [--lacks TEXT]` (each repeatable but `--idle-only`; a repeated `--label` or
`--situation` is any of them, a repeated `--contains` or `--lacks` all of them).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coopgraph.evals.decision_reader import DecisionFileError, read_points
from coopgraph.evals.distill.mix import distinct, write_points

IDLE = frozenset({"wait.", "move away."})
#: What a point needs for the filters and the mix's key.
KEYS = ("options", "expert_choice", "facts")


@dataclass(frozen=True)
class Slice:
    """What a point must be to be kept; an empty field keeps every point."""

    labels: tuple[str, ...] = ()
    situations: tuple[str, ...] = ()
    idle_only: bool = False
    contains: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()

    def keeps(self, point: dict[str, Any]) -> bool:
        facts = point.get("facts") or {}
        state = str(facts.get("progress", ""))
        names = {"me": str(facts.get("agent_name", "")), "partner": ", ".join(facts.get("partner_names") or ())}

        def said(text: str) -> bool:
            return text.format_map(names) in state

        return ((not self.labels or point.get("expert_choice") in self.labels)
                and (not self.situations or str(point.get("situation") or "").startswith(self.situations))
                and (not self.idle_only or set(point.get("options") or ()) <= IDLE)
                and all(said(text) for text in self.contains)
                and not any(said(text) for text in self.lacks))


def selected(points: Iterable[dict[str, Any]], which: Slice) -> list[dict[str, Any]]:
    """The distinct points `which` keeps, in the order they come."""
    return distinct(point for point in points if which.keeps(point))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="decisions files (`coopgraph data decisions`)")
    parser.add_argument("-o", "--out", type=Path, required=True)
    parser.add_argument("--label", action="append", default=[], help="the expert's answer is one of these")
    parser.add_argument("--situation", action="append", default=[], help="the point's situation starts so")
    parser.add_argument("--idle-only", action="store_true", help="the options are `wait.` and `move away.` alone")
    parser.add_argument("--contains", action="append", default=[], help="the rendered state contains this text "
                        "({me}, {partner}: the point's cook and its partner)")
    parser.add_argument("--lacks", action="append", default=[], help="the rendered state lacks this text")
    args = parser.parse_args(argv)
    which = Slice(tuple(args.label), tuple(args.situation), args.idle_only, tuple(args.contains), tuple(args.lacks))
    missing = [str(path) for path in args.files if not path.is_file()]
    if missing:
        print(f"error: no decisions file {', '.join(missing)}", file=sys.stderr)
        return 2
    try:  # every line read and checked before anything is written
        points = selected((point for path in args.files for point in read_points(path, KEYS)), which)
    except DecisionFileError as exc:  # a line that is not JSON, or not a decision point, named with its line
        print(f"error: {exc}", file=sys.stderr)
        return 2
    splits = Counter(str(point.get("split")) for point in points)
    write_points(points, args.out)
    print(f"wrote {len(points)} distinct points to {args.out} ({', '.join(f'{k} {v}' for k, v in splits.items())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
