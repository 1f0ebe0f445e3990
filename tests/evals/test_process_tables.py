"""`coopgraph report`'s process tables, from a real evaluation's stored runs and their traces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.store import ResultStore
from coopgraph.record.process import process_measures
from coopgraph.record.trace_file import read_events
from tests.evals.report_cells import check_cells

SUITE = """\
name: pm
kind: comparison
environment: {name: overcooked}
episodes: [cramped_room, asymmetric_advantages]
seeds: [0]
teams:
  - label: Greedy + Greedy
    members: [greedy, greedy]
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("process-report")
    suite = folder / "pm.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    ran = CliRunner().invoke(app, ["eval", str(suite), "--out", str(folder / "out"), "--max-steps", "60",
                                   "--workers", "1", "--json"])
    assert ran.exit_code == 0, ran.output
    return folder / "out"


def _report(folder: Path) -> dict[str, Any]:
    shown = CliRunner().invoke(app, ["report", str(folder), "--json"])
    assert shown.exit_code == 0, shown.output
    return json.loads(shown.stdout)


def test_report_json_carries_the_process_table_with_intervals_and_reasons(store: Path) -> None:
    data = _report(store)
    tables = {t["name"]: t for t in data["tables"]}
    team, agents = tables["process"], tables["process-agents"]
    assert check_cells([team, agents]) >= 10
    row = team["rows"][0]
    assert row["team"] == "Greedy + Greedy" and row["runs"] == 2
    assert row["idle"]["n"] == 2 and row["idle"]["ci95"] is not None
    assert set(row["duplicated"]) == {"na"} and "id" in row["duplicated"]["na"]  # Overcooked acts are moves
    with ResultStore(store) as results:
        rows = results.rows()
    idle = [process_measures(read_events(Path(r["trace_path"]))).team["idle"] for r in rows]
    assert row["idle"]["mean"] == pytest.approx(sum(idle) / len(idle))  # type: ignore[arg-type]
    assert [r["agent"] for r in agents["rows"]] == ["alice (greedy)", "bob (greedy)"]
    text = Path(data["report"]).read_text(encoding="utf-8")
    assert "pm: how the team cooperated — process measures" in text and "| n/a |" in text
    assert "Idle (ticks / agent)" in text and "n/a duplicated effort:" in text


def test_a_moved_store_still_finds_its_traces_and_a_store_without_them_says_so(store: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    shutil.copytree(store, moved)
    shutil.rmtree(store / "traces")  # the stored paths now point nowhere; the copy keeps them under its folder
    try:
        assert {t["name"] for t in _report(moved)["tables"]} >= {"process", "process-agents"}
        gone = _report(store)
        assert "process" not in {t["name"] for t in gone["tables"]}
        assert "No process measures" in Path(gone["report"]).read_text(encoding="utf-8")
    finally:
        shutil.copytree(moved / "traces", store / "traces")
