"""`coopgraph trace process TRACE`: one run's process measures as text or JSON, bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import coopgraph
from coopgraph.cli import app

runner = CliRunner()


def test_prints_a_row_per_agent_the_team_and_the_reasons_for_n_a(tmp_path: Path) -> None:
    result = coopgraph.run(env="overcooked", team=["greedy", "greedy"], max_steps=30, out=tmp_path,
                           keep_checkpoints=False)
    assert result.trace_path is not None
    trace = Path(result.trace_path)
    shown = runner.invoke(app, ["trace", "process", str(trace)])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert lines[0] == f"{trace.name}: overcooked, 30 ticks"
    assert [line.split()[0] for line in lines[1:5]] == ["agent", "alice", "bob", "team"]
    assert "n/a duplicated: no act or plan in the trace names a thing by id" in shown.stdout
    data = json.loads(runner.invoke(app, ["trace", "process", str(trace), "--json"]).stdout)
    assert data["unit"] == "ticks" and data["time"] == 30 and set(data["agents"]) == {"alice", "bob"}
    assert "na" in data["team"]["duplicated"] and isinstance(data["marks"]["alice"]["idle"], list)


def test_a_missing_file_or_a_file_that_is_not_a_trace_is_one_line(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["trace", "process", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code != 0 and "no trace file" in missing.output and "Traceback" not in missing.output
    document = tmp_path / "one.json"
    document.write_text('{"a": [1,\n 2]}', encoding="utf-8")
    wrong = runner.invoke(app, ["trace", "process", str(document)])
    assert wrong.exit_code != 0 and "is not a trace" in wrong.output and len(wrong.output.strip().splitlines()) <= 3
