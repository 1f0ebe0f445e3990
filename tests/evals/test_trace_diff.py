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


def test_a_fork_shows_where_it_branched_and_where_the_runs_part(traces: dict[str, Path], tmp_path: Path) -> None:
    from coopgraph.runtime.fork import fork_run
    from tests.runtime.test_fork import MISLEAD

    fork = Path(fork_run(traces["pair"], 20, say=f"alice:{MISLEAD}", out=tmp_path).trace_path)
    diff = compare(traces["pair"], fork)
    assert diff.branch is not None and (diff.branch.side, diff.branch.step, diff.branch.of_other) == ("B", 20, True)
    assert diff.first_difference == diff.first_difference_after_fork == 21
    text = render_text(diff)
    assert "B forks A at step 20 (changed: say alice: \"B: Seen:" in text
    assert "first difference after the fork: step 21" in text
    lines = text.splitlines()
    mark = next(i for i, line in enumerate(lines) if "B branches here, at step 20" in line)
    assert lines[mark + 1].startswith("  20 ") and lines[mark - 2].startswith("  19 ")  # drawn between 19 and 20
    html = render_html(diff)
    assert "<tr class=fork data-fork='20'>" in html and "first difference after the fork: step 21" in html
    summary = diff.summary()["fork"]
    assert summary["changes"]["say"] == {"agent": "alice", "text": MISLEAD} and summary["first_difference"] == 21
    backwards = compare(fork, traces["pair"])
    assert backwards.branch is not None and backwards.branch.side == "A"
    assert render_text(backwards).count("A forks B at step 20") == 1


def test_a_fork_of_a_fork_names_the_trace_it_came_from(traces: dict[str, Path], tmp_path: Path) -> None:
    from coopgraph.runtime.fork import fork_run

    fork = fork_run(traces["pair"], 10, out=tmp_path).trace_path
    again = fork_run(fork, 30, team=["mhp", "mhp-silent"], out=tmp_path).trace_path
    diff = compare(traces["pair"], again)
    assert diff.branch is not None and not diff.branch.of_other and diff.branch.step == 30
    assert f"B forks {Path(fork).resolve()} at step 30 (changed: team bob: mhp → mhp-silent)" in render_text(diff)
    assert diff.first_difference_after_fork is not None and diff.first_difference_after_fork > 30
    assert compare(traces["pair"], traces["quiet"]).summary()["fork"] is None
