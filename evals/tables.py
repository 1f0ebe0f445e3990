"""Tables as data, written as markdown (means with spread in one cell) and CSV (numbers in their own columns).

Keeping the table shape apart from its formatting lets the report build each paper-style table once and
write it twice without the two drifting apart.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Literal

from coopgraph.evals.metrics import Stat

Format = Literal["text", "num", "pct", "signed_pct", "stat", "stat_pct"]


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
            header += [c.key, f"{c.key}_std", f"{c.key}_min", f"{c.key}_max"] if c.fmt.startswith("stat") else [c.key]
        writer.writerow(header)
        for row in self.rows:
            cells: list[Any] = []
            for c in self.columns:
                value = row.get(c.key)
                if c.fmt.startswith("stat"):
                    s = value if isinstance(value, Stat) else Stat(None)
                    cells += [_raw(s.mean), _raw(s.std), _raw(s.low), _raw(s.high)]
                else:
                    cells.append(_raw(value))
            writer.writerow(cells)
        return buffer.getvalue()


def _raw(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 4)
    return value


def _number(value: float, digits: int, pct: bool) -> str:
    return f"{value * 100:.0f}%" if pct else f"{value:,.{digits}f}"


def _md_cell(value: Any, column: Column) -> str:
    if value is None:
        return "–"
    if column.fmt == "text":
        return str(value).replace("|", "\\|")
    if column.fmt in ("stat", "stat_pct"):
        s = value if isinstance(value, Stat) else Stat(float(value))
        if s.mean is None:
            return "–"
        pct = column.fmt == "stat_pct"
        text = _number(s.mean, column.digits, pct)
        if s.std is not None:
            return f"{text} ± {_number(s.std, column.digits, pct)}"
        if s.low is not None and s.high is not None and s.high > s.low:
            return f"{text} [{_number(s.low, column.digits, pct)}–{_number(s.high, column.digits, pct)}]"
        return text
    if column.fmt == "pct":
        return _number(float(value), column.digits, True)
    if column.fmt == "signed_pct":
        return f"{'↑' if value >= 0 else '↓'}{abs(value) * 100:.0f}%"
    return _number(float(value), column.digits, False)
