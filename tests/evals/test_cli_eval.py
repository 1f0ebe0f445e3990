"""`coopgraph eval` and `coopgraph report` as a user calls them: one JSON object with --json, clear errors."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app

runner = CliRunner()

SUITE = """\
name: cli-check
environment: {name: cwah}
episodes: [test/8, test/3]
teams:
  - label: MHP
    members: [mhp]
    references: [{source: CoELA t.2, world: cwah, split: test, steps: 111}]
  - label: MHP + MHP
    members: [mhp, mhp]
    references: [{source: CoELA t.2, world: cwah, split: test, steps: 75, ei: 0.33}]
  - label: future
    members: [mhp, capo-does-not-exist]
"""


def test_eval_then_report_with_json(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    out = tmp_path / "out"
    result = runner.invoke(app, ["eval", str(suite), "--out", str(out), "--json", "--limit", "1"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)  # exactly one JSON object on stdout
    assert payload["jobs"] == 2 and payload["done"] == 2 and payload["skipped_teams"] == ["future"]
    assert payload["teams"]["MHP + MHP"]["episodes"] == 1
    assert "unknown member(s) capo-does-not-exist" in result.stderr

    report = runner.invoke(app, ["report", str(out), "--json"])
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    teams = {t["team"]: t for t in data["teams"]}
    assert set(teams) == {"MHP", "MHP + MHP"} and teams["MHP"]["episodes"] == 1
    assert teams["MHP + MHP"]["metrics"]["steps"] < teams["MHP"]["metrics"]["steps"]
    assert teams["MHP + MHP"]["ei"] > 0 and teams["MHP"]["ei"] is None
    assert Path(data["report"]).is_file() and all(Path(f).is_file() for f in data["files"])

    text = runner.invoke(app, ["report", str(out)])
    assert text.exit_code == 0 and "| paper (CoELA t.2) |" in text.stdout and "75 (↑33%)" in text.stdout


def test_an_invalid_suite_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    suite = tmp_path / "bad.yaml"
    suite.write_text(SUITE.replace("episodes: [test/8, test/3]", "episodes: [test/8]\nseeds: nope"), encoding="utf-8")
    result = runner.invoke(app, ["eval", str(suite), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{suite}:4:" in result.output and "seeds" in result.output


def test_unknown_team_label_and_missing_store_are_clear_errors(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "cwah-baselines", "--out", str(tmp_path), "--team", "Nobody"])
    assert result.exit_code == 2 and "no team 'Nobody'" in result.output and "MHP + MHP" in result.output
    missing = runner.invoke(app, ["report", str(tmp_path / "empty")])
    assert missing.exit_code == 2 and "no result store" in missing.output


def test_eval_summary_counts_only_the_current_configuration_like_the_report(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    out = tmp_path / "out"
    args = ["eval", str(suite), "--out", str(out), "--json", "--limit", "1", "--team", "MHP"]
    assert runner.invoke(app, args).exit_code == 0
    changed = runner.invoke(app, [*args, "--max-steps", "400"])  # another configuration of the same team
    payload = json.loads(changed.stdout)
    assert payload["done"] == 1 and payload["teams"]["MHP"]["episodes"] == 1


def test_with_json_what_the_jobs_print_goes_to_stderr_and_stdout_stays_one_object(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Ray's driver prints a killed worker's report on stdout while jobs run; a backend's chatter must not break --json.
    import coopgraph.cli.evaluate as evaluate
    import coopgraph.evals.parallel as parallel  # the command imports run_jobs from here when it runs

    real_run_jobs = parallel.run_jobs

    def chatty(*args, **kwargs):  # type: ignore[no-untyped-def]
        print("(raylet) A worker died or was killed while executing a task")
        summary = real_run_jobs(*args, **kwargs)
        # Ray's thread reports a death whenever it hears of it, also after the jobs have returned (CI saw that).
        threading.Timer(0.05, print, args=("(raylet) a late report",)).start()
        return summary

    real_means = evaluate._team_means

    def slow_means(*args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(0.3)  # the late report is printed while the command sums up the store
        return real_means(*args, **kwargs)

    monkeypatch.setattr(parallel, "run_jobs", chatty)
    monkeypatch.setattr(evaluate, "_team_means", slow_means)
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    result = runner.invoke(app, ["eval", str(suite), "--out", str(tmp_path / "out"), "--json", "--limit", "1",
                                 "--team", "MHP"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["done"] == 1
    assert "(raylet) A worker died" in result.stderr and "(raylet) a late report" in result.stderr
