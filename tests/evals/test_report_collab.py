"""The Collab games in `coopgraph report`: turns to capture per start and escape rate per team, from real runs of
the shipped suites with the scripted partners (no model), and no paper column since the paper has none."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.report import write_report
from tests.evals.report_cells import check_cells

runner = CliRunner()


def _report(tmp_path: Path, suite: str, team: str, limit: int) -> str:
    result = runner.invoke(app, ["eval", suite, "--out", str(tmp_path), "--team", team, "--limit", str(limit)])
    assert result.exit_code == 0, result.output
    data = write_report(tmp_path)
    assert check_cells(data["tables"]) > 5  # mean, ci95 and n in every metric cell of --json
    return Path(data["report"]).read_text(encoding="utf-8")


def test_capture_reports_turns_per_start_and_the_capture_rate(tmp_path: Path) -> None:
    page = _report(tmp_path, "collab-capture-llmco", "Planner + Planner", 2)
    assert "turns to capture per start" in page and "Average steps" not in page
    start = next(line for line in page.splitlines() if line.startswith("| test/0 |"))
    # 3 turns from the reference start, one game (`, deterministic` too where runs record that they are)
    assert start.split("|")[2].strip().startswith("3.0 (n=1")
    team = next(line for line in page.splitlines() if line.startswith("| Planner + Planner |"))
    assert team.split("|")[2].strip() == "2"  # 2 games, both captures
    assert team.split("|")[3].strip().startswith("1.00 [1.00, 1.00] (n=2")
    assert "no paper column" in page


def test_escape_reports_escape_and_caught_rates(tmp_path: Path) -> None:
    page = _report(tmp_path, "collab-escape-llmco", "Random + Random", 2)
    team = next(line for line in page.splitlines() if line.startswith("| Random + Random |"))
    cells = [c.strip() for c in team.strip("|").split("|")]
    assert cells[1] == "2" and cells[2].startswith("0.00 [0.00, 0.00] (n=2")  # the killer catches both
    assert cells[3].startswith("1.00 [1.00, 1.00] (n=2")
    assert cells[5] == "–"  # no escape, so no turns over escapes
    assert "Escape rate" in page and "Caught rate" in page and "no paper column" in page
