"""Tables as data, written as markdown (a mean, its 95% interval and n in one cell), CSV (numbers in their own
columns) and JSON (`report --json`: `mean`, `ci95` and `n` per cell; `na` with the reason for a measure the runs
cannot give, printed `n/a`).

Keeping the table shape apart from its formatting lets the report build each paper-style table once and
write it twice without the two drifting apart.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from coopgraph.evals.metrics import Stat
from coopgraph.record.process.measures import NotAvailable

Format = Literal["text", "num", "pct", "signed_pct", "stat", "stat_pct", "stat_signed_pct"]


@dataclass
class Column:
    key: str
    title: str
    fmt: Format = "num"
    digits: int = 1


@dataclass
class Table:
    """A titled table: columns, one dict per row, and a legend printed under it."""

    name: str
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]] = field(default_factory=list)
    legend: str = ""

    def markdown(self) -> str:
        head = "| " + " | ".join(c.title for c in self.columns) + " |"
        rule = "| " + " | ".join("---" if c.fmt == "text" else "---:" for c in self.columns) + " |"
        lines = [f"### {self.title}", "", head, rule]
        for row in self.rows:
            lines.append("| " + " | ".join(_md_cell(row.get(c.key), c) for c in self.columns) + " |")
        if self.legend:
            lines += ["", self.legend]
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        header: list[str] = []
        for c in self.columns:
            header += [c.key, *(f"{c.key}_{part}" for part in STAT_PARTS)] if _is_stat(c) else [c.key]
        writer.writerow(header)
        for row in self.rows:
            cells: list[Any] = []
            for c in self.columns:
                value = row.get(c.key)
                if isinstance(value, NotAvailable):
                    cells += ["n/a", *([""] * len(STAT_PARTS))] if _is_stat(c) else ["n/a"]
                elif _is_stat(c):
                    s = value if isinstance(value, Stat) else Stat(None)
                    low, high = s.ci95 or (None, None)
                    cells += [_raw(v) for v in (s.mean, s.std, s.low, s.high, low, high, s.n if s.mean is not None
                                                else None)]
                else:
                    cells.append(_raw(value))
            writer.writerow(cells)
        return buffer.getvalue()

    def as_json(self) -> dict[str, Any]:
        """The table for `report --json`: column titles by key, and rows whose metric cells are `Stat.cell()`."""
        rows = [{c.key: _json_cell(row.get(c.key), c) for c in self.columns} for row in self.rows]
        return {"name": self.name, "title": self.title, "columns": {c.key: c.title for c in self.columns},
                "rows": rows}


#: A stat column's CSV columns after its mean: std and range over replicates, the 95% interval, n.
STAT_PARTS = ("std", "min", "max", "ci95_low", "ci95_high", "n")


def _is_stat(column: Column) -> bool:
    return column.fmt.startswith("stat")


def _json_cell(value: Any, column: Column) -> Any:
    if isinstance(value, NotAvailable):
        return value.as_dict()
    if isinstance(value, Stat):
        return value.cell()
    if _is_stat(column) and value is not None:  # a bare number: its runs are not known
        return {"mean": float(value), "ci95": None, "n": None, "deterministic": None}
    return value


def _raw(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 4)
    return value


def _number(value: float, digits: int, pct: bool) -> str:
    return f"{value * 100:.0f}%" if pct else f"{value:,.{digits}f}"


def _signed_pct(value: float) -> str:
    return f"{'↑' if value >= 0 else '↓'}{abs(value) * 100:.0f}%"


def stat_text(s: Stat, digits: int = 1, fmt: Format = "stat") -> str:
    """`68.9 [61.2, 77.0] (n=10)`: the mean, its 95% interval, the runs; `(n=1)` alone when there is nothing to
    resample, and `deterministic` when every run said its replicates are copies."""
    if s.mean is None:
        return "–"
    bound: Callable[[float], str]
    if fmt == "stat_signed_pct":
        text, bound = _signed_pct(s.mean), _signed_pct
    else:
        pct = fmt == "stat_pct"
        text, bound = _number(s.mean, digits, pct), (lambda v: _number(v, digits, pct))
    tags = f"n={s.n}" + (", deterministic" if s.deterministic else "")
    if s.ci95 is None:
        return f"{text} ({tags})"
    return f"{text} [{bound(s.ci95[0])}, {bound(s.ci95[1])}] ({tags})"


def _md_cell(value: Any, column: Column) -> str:
    if value is None:
        return "–"
    if isinstance(value, NotAvailable):
        return "n/a"
    if column.fmt == "text":
        return str(value).replace("|", "\\|")
    if _is_stat(column) and isinstance(value, Stat):
        return stat_text(value, column.digits, column.fmt)
    if column.fmt in ("stat_signed_pct", "signed_pct"):
        return _signed_pct(value)
    return _number(float(value), column.digits, column.fmt in ("pct", "stat_pct"))
