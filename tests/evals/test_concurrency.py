"""Episodes at once and agents at once: against a loopback server that answers after a fixed delay, a suite run with
`concurrency` keeps several requests in flight yet stores the same results and writes the same traces as a
sequential run, and an interrupted concurrent run resumes with every episode exactly once (issue 37)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.parallel import ConcurrencyInvalid, run_jobs
from coopgraph.evals.report import in_job_order
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, parse_suite
from coopgraph.record.trace_file import read_events
from coopgraph.testing.sampling_server import sampling_server
from tests.evals.test_resume import _check_complete, _group_alive, _kill_group, _rerun, _start_and_interrupt, _stored
from tests.evals.test_resume import _suite as resume_suite

SUITE = """\
name: pairs-at-once
environment: {name: cwah}
episodes: [test/0, test/1]
seeds: [0, 1]
max_steps: 6
llm: vllm:sampler
teams:
  - label: CoELA + CoELA
    members: [coela, coela]
"""
RESULT_FIELDS = ("success", "steps", "max_steps", "metrics", "per_agent", "progress", "decisions", "llm_calls",
                 "prompt_tokens", "completion_tokens", "invalid_answers", "model_seeds", "deterministic")
#: Event fields that say when, how long or under which generated id: they differ between any two runs.
VOLATILE = {"t", "latency_s", "model_wait_s", "thread_id", "checkpoint_id", "file", "wall_time_s", "llm_seconds",
            "run_id", "started_at", "finished_at", "trace_path", "versions", "created", "elapsed_s", "wall"}

runner = CliRunner()


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return row["team"], row["episode"], row["seed"], row["repeat"]


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _report(text: str, out: Path) -> Any:
    """A report's JSON with its own folder's name and time-like fields taken out."""
    return _stable(json.loads(text.replace(str(out), "OUT")))


def _run(out: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int) -> list[dict[str, Any]]:
    monkeypatch.setenv("COOPGRAPH_CACHE", str(out / "cache"))  # every run asks the server itself
    jobs = expand_jobs(parse_suite(SUITE), out)
    with ResultStore(out) as store:
        store.save_suite("pairs-at-once", "suite.yaml", SUITE)  # as `coopgraph eval` does: the report reads it
        summary = run_jobs(jobs, store, concurrency=concurrency)
        assert (summary.done, summary.errors) == (4, 0), summary.error_messages
        return store.rows()


@pytest.fixture
def slow_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with sampling_server(latency_s=0.05) as (url, seen):
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        yield seen


def test_concurrent_episodes_store_and_trace_what_a_sequential_run_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slow_server: Any) -> None:
    sequential = _run(tmp_path / "sequential", monkeypatch, 1)
    assert slow_server.max_in_flight == 2  # one episode at a time, its two agents asking together
    slow_server.max_in_flight = 0
    concurrent = _run(tmp_path / "concurrent", monkeypatch, 4)
    assert slow_server.max_in_flight > 2  # several episodes' requests in flight at once

    by_key = {_key(r): r for r in concurrent}
    assert sorted(by_key) == sorted(_key(r) for r in sequential)
    for row in sequential:
        other = by_key[_key(row)]
        assert {f: row[f] for f in RESULT_FIELDS} == {f: other[f] for f in RESULT_FIELDS}, _key(row)
        assert row["llm_calls"] > 0
        first, second = read_events(row["trace_path"]), read_events(other["trace_path"])
        assert [_stable(e) for e in first] == [_stable(e) for e in second], _key(row)

    # Rows are stored in finishing order; the report does not depend on it (wall times aside).
    reports = [runner.invoke(app, ["report", str(tmp_path / name), "--json"]) for name in ("sequential", "concurrent")]
    assert all(r.exit_code == 0 for r in reports), [r.output for r in reports]
    assert _report(reports[0].stdout, tmp_path / "sequential") == _report(reports[1].stdout, tmp_path / "concurrent")


def test_an_agents_events_stay_together_in_agent_order_within_a_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slow_server: Any) -> None:
    rows = _run(tmp_path / "run", monkeypatch, 2)
    events = read_events(rows[0]["trace_path"])
    step_agents: list[str] = []  # the agent of each event between two env_steps, collapsed to runs
    for event in events:
        if event["type"] == "env_step":
            assert step_agents in ([], ["alice"], ["bob"], ["alice", "bob"]), step_agents
            step_agents = []
        elif event.get("agent") and event["type"] != "message" and (not step_agents or
                                                                    step_agents[-1] != event["agent"]):
            step_agents.append(event["agent"])


def test_an_interrupted_concurrent_run_resumes_with_each_episode_once(tmp_path: Path) -> None:
    class InterruptedAfterTwo(ResultStore):
        writes = 0

        def record(self, row: dict[str, Any]) -> None:
            super().record(row)
            self.writes += 1
            if self.writes == 2:
                raise KeyboardInterrupt

    suite = parse_suite(SUITE.replace("llm: vllm:sampler\n", "").replace("[coela, coela]", "[mhp, mhp]"))
    jobs = expand_jobs(suite, tmp_path)
    with InterruptedAfterTwo(tmp_path) as store:
        first = run_jobs(jobs, store, concurrency=3)
        assert first.interrupted and first.done == 2
    with ResultStore(tmp_path) as store:
        again = run_jobs(jobs, store, concurrency=3)
        assert (again.skipped, again.done, again.errors) == (2, 2, 0)
        rows = store.rows(status=None)
    assert sorted(_key(r) for r in rows) == sorted({_key(r) for r in rows}) and len(rows) == len(jobs)


def test_kill_9_of_a_concurrent_eval_then_rerun_runs_each_episode_once(tmp_path: Path) -> None:
    import sys

    suite, out = resume_suite(tmp_path), tmp_path / "out"
    command = [sys.executable, "-m", "coopgraph", "eval", str(suite), "--out", str(out), "--concurrency", "4",
               "--json"]
    process = _start_and_interrupt(command, out, signal.SIGKILL, tmp_path / "first.log")
    try:
        assert process.returncode == -signal.SIGKILL and not _group_alive(process.pid)
    finally:
        _kill_group(process.pid)
    before = _stored(out)
    assert before, "the kill came before any row was stored"
    payload = _rerun(suite, out)
    assert payload["skipped_done"] == len(before) and payload["errors"] == 0
    _check_complete(out, before)


@pytest.mark.parametrize("value", ["0", "-2"])
def test_concurrency_below_one_is_one_clear_line(tmp_path: Path, value: str) -> None:
    result = runner.invoke(app, ["eval", "cwah-baselines", "--out", str(tmp_path / "out"), "--concurrency", value])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "--concurrency must be a whole number of 1 or more" in lines[0], result.output
    assert f"got {value}" in lines[0] and not (tmp_path / "out").exists()
    with pytest.raises(ConcurrencyInvalid):
        run_jobs([], ResultStore(tmp_path / "store"), concurrency=0)


def test_workers_with_concurrency_store_what_a_sequential_run_does_in_report_order(tmp_path: Path) -> None:
    suite = parse_suite(SUITE.replace("llm: vllm:sampler\n", "").replace("[coela, coela]", "[mhp, mhp]"))
    runs = {}
    for name, workers, concurrency in (("sequential", 1, 1), ("pool", 2, 2)):
        jobs = expand_jobs(suite, tmp_path / name)
        with ResultStore(tmp_path / name) as store:
            summary = run_jobs(jobs, store, workers=workers, concurrency=concurrency)
            assert (summary.done, summary.errors) == (4, 0), summary.error_messages
            runs[name] = in_job_order(store.rows(), suite)
    assert [_key(r) for r in runs["pool"]] == [(j.team, j.episode, j.seed, j.repeat) for j in jobs]
    assert [{f: r[f] for f in RESULT_FIELDS} for r in runs["pool"]] == [
        {f: r[f] for f in RESULT_FIELDS} for r in runs["sequential"]]
    assert len({r["pid"] for r in runs["pool"]}) <= 2 and os.getpid() not in {r["pid"] for r in runs["pool"]}
