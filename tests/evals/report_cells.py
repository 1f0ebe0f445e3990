"""What every metric cell of `report --json` must look like, for the report tests of each world."""

from __future__ import annotations

from typing import Any

CELL_KEYS = {"mean", "ci95", "n", "deterministic"}


def metric_cells(table: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The table's metric cells by column key (a metric cell is a dict with a mean)."""
    cells: dict[str, list[dict[str, Any]]] = {}
    for row in table["rows"]:
        for key, value in row.items():
            if isinstance(value, dict) and "mean" in value:
                cells.setdefault(key, []).append(value)
    return cells


def check_cells(tables: list[dict[str, Any]]) -> int:
    """Assert every metric cell gives mean, ci95 as [low, high] around it (or none with n = 1, or for copies of one
    deterministic run) and n; return how many cells were checked."""
    checked = 0
    for table in tables:
        for column, cells in metric_cells(table).items():
            for cell in cells:
                where = f"{table['suite']} / {table['name']} / {column}: {cell}"
                assert set(cell) >= CELL_KEYS, where
                if cell["mean"] is None:
                    continue
                assert isinstance(cell["n"], int) and cell["n"] >= 1, where
                if cell["ci95"] is None:
                    assert cell["n"] == 1 or cell["deterministic"], where
                else:
                    low, high = cell["ci95"]
                    assert low - 1e-9 <= cell["mean"] <= high + 1e-9, where
                checked += 1
    return checked
