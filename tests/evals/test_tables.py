"""A table written three ways: markdown cells `mean [low, high] (n=N)`, CSV columns per part, JSON cells."""

from __future__ import annotations

import csv
import io

from coopgraph.evals.metrics import Stat
from coopgraph.evals.tables import Column, Table


def _table() -> Table:
    columns = [Column("team", "Team", "text"), Column("steps", "Steps", "stat"), Column("ei", "EI", "stat_signed_pct"),
               Column("bare", "Bare", "stat")]
    rows = [{"team": "a", "steps": Stat(68.93, std=2.0, low=60.0, high=80.0, n=10, ci95=(61.24, 77.0)),
             "ei": Stat(-0.05, n=10, ci95=(-0.12, 0.01), paired_by="episode, seed, repeat"), "bare": 3.0},
            {"team": "b", "steps": Stat(70.0, n=1), "ei": None, "bare": None}]
    return Table("t", "title", columns, rows)


def test_markdown_cells_give_mean_interval_and_n() -> None:
    text = _table().markdown()
    assert "| a | 68.9 [61.2, 77.0] (n=10) | ↓5% [↓12%, ↑1%] (n=10) | 3.0 |" in text
    assert "| b | 70.0 (n=1) | – | – |" in text


def test_csv_and_json_carry_the_interval_and_n_apart() -> None:
    table = _table()
    first = next(csv.DictReader(io.StringIO(table.csv())))
    assert (first["steps"], first["steps_std"], first["steps_ci95_low"], first["steps_ci95_high"], first["steps_n"]) \
        == ("68.93", "2.0", "61.24", "77.0", "10")
    rows = table.as_json()["rows"]
    assert rows[0]["ei"] == {"mean": -0.05, "ci95": [-0.12, 0.01], "n": 10, "deterministic": None,
                             "paired_by": "episode, seed, repeat"}
    assert rows[1]["steps"] == {"mean": 70.0, "ci95": None, "n": 1, "deterministic": None}
    assert rows[0]["bare"]["n"] is None and table.as_json()["columns"]["steps"] == "Steps"
