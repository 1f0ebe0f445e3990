"""Reading a decision-points file (`coopgraph data decisions`, a mix) with each point's line number, so every tool
that reads one names the file and line of a line it cannot use instead of stopping with a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class DecisionFileError(ValueError):
    """A decisions file, or a point in it, that a tool cannot use; the message names the file and line."""


def numbered_points(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The file's decision points with their line numbers (blank lines skipped)."""
    points = []
    with Path(path).open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                points.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise DecisionFileError(f"{path}:{number}: not a JSON decision point ({exc.msg})") from None
    return points


def require_keys(point: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    """Refuse a JSON line that is not what `coopgraph data decisions` writes, naming `where` (file:line) and the keys
    it lacks, before a tool indexes into it."""
    missing = [key for key in keys if key not in point]
    if missing:
        raise DecisionFileError(f"{where}: not a decision point of `coopgraph data decisions` (it has no "
                                f"{', '.join(map(repr, missing))})")


def read_points(path: Path, keys: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The file's decision points, each checked to carry `keys` (`require_keys`; none: any JSON object)."""
    points = numbered_points(path)
    for number, point in points:
        require_keys(point, keys, f"{path}:{number}")
    return [point for _, point in points]
