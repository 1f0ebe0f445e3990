"""`coopgraph trace diff`: two runs of one episode side by side with the first step where they differ."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.trace_diff import compare, render_html, render_text

runner = CliRunner()


def test_identical_runs_have_no_difference(traces: dict[str, Path]) -> None:
    same = compare(traces["pair"], traces["decided"])
    assert same.first_difference is None and same.differing_steps == 0 and same.same_episode
    assert same.summary()["delta"]["steps"] == 0 and same.b.llm["llm_calls"] == 3


def test_a_silent_partner_diverges_and_both_renderings_show_it(traces: dict[str, Path], tmp_path: Path) -> None:
    diff = compare(traces["pair"], traces["quiet"])
    assert diff.first_difference == 1 and diff.differing_steps > 0  # MHP talks at step 1, the silent one acts
    text = render_text(diff)
    assert "first difference: step 1" in text and "mhp + mhp-silent" in text and "≠" in text
    html = render_html(diff)
    assert html.startswith("<!DOCTYPE html>") and "class='diff' data-step='1'" in html
    result = runner.invoke(app, ["trace", "diff", str(traces["pair"]), str(traces["quiet"]), "-o",
                                 str(tmp_path / "d.html"), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["first_difference"] == 1 and (tmp_path / "d.html").read_text(encoding="utf-8") == html
    plain = runner.invoke(app, ["trace", "diff", str(traces["pair"]), str(traces["quiet"])])
    assert plain.exit_code == 0 and plain.stdout == text
