"""Running suites in-process: rows land in the store, reruns skip finished work, failures are rows a rerun retries.

Worker processes and interruptions are tested on the real command in test_resume.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.evals.parallel import pending_jobs, run_jobs
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, parse_suite
from coopgraph.evals.suite_job import progress_from_events, run_job
from coopgraph.record.trace_file import read_events

SUITE = """\
name: tiny
environment: {name: cwah}
episodes: [test/8, test/3]
teams:
  - label: MHP
    members: [mhp]
  - label: MHP + MHP
    members: [mhp, mhp]
"""


def test_inline_run_stores_one_complete_row_per_job_and_a_rerun_skips_them(tmp_path: Path) -> None:
    jobs = expand_jobs(parse_suite(SUITE), tmp_path)
    seen = []
    with ResultStore(tmp_path) as store:
        summary = run_jobs(jobs, store, on_result=lambda job, row: seen.append(row["status"]))
        assert (summary.total, summary.done, summary.errors, summary.skipped) == (4, 4, 0, 0) and seen == ["done"] * 4
        rows = store.rows()
        again = run_jobs(jobs, store)
        assert (again.skipped, again.done) == (4, 0)
    row = next(r for r in rows if r["team"] == "MHP + MHP" and r["episode"] == "test/8")
    assert row["success"] == 1.0 and row["steps"] > 0 and row["subgoals_total"] > 0
    assert row["oracle_bound"] and row["oracle_bound"] <= row["steps"]
    assert row["decisions"] > 0 and row["llm_calls"] == 0 and row["versions"]["coopgraph"]
    events = read_events(row["trace_path"])
    assert events[-1]["type"] == "run_summary"
    assert row["progress"] == progress_from_events(events) and row["progress"][-1][1] == row["subgoals_total"]
    assert any(e["type"] == "episode_start" and e["layout"]["rooms"] for e in events)


def test_a_failing_job_becomes_an_error_row_and_is_retried(tmp_path: Path) -> None:
    suite = parse_suite(SUITE.replace("episodes: [test/8, test/3]", "episodes: [test/8, seed/abc]"))
    jobs = expand_jobs(suite, tmp_path, teams=["MHP"])
    with ResultStore(tmp_path) as store:
        summary = run_jobs(jobs, store)
        assert (summary.done, summary.errors) == (1, 1) and "seed/abc" in summary.error_messages[0]
        (failed,) = store.rows(status="error")
        assert "UnknownEpisodeError" in failed["error"]
        todo, skipped = pending_jobs(jobs, store)
        assert skipped == 1 and [j.episode for j in todo] == ["seed/abc"]


def test_each_member_gets_its_own_llm_setting(tmp_path: Path) -> None:
    suite = parse_suite(SUITE.replace("members: [mhp, mhp]", "members: [{name: coela, llm: local}, {name: coela}]"))
    team = next(t for t in suite.teams if t.label == "MHP + MHP")
    team.members[0].llm = "a:b"  # past the suite check (which refuses it), so the job shows whose setting it ran
    (job,) = expand_jobs(suite, tmp_path, teams=["MHP + MHP"], limit=1)
    assert len(set(job.llms)) == 2
    row = run_job(job.model_dump())
    assert row["status"] == "error" and "unknown LLM setting 'a:b'" in row["error"]  # the member's own setting


def test_ray_backend_without_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from coopgraph.evals.ray_backend import BackendUnavailable, import_ray

    real_import = builtins.__import__

    def no_ray(name: str, *args: object, **kwargs: object) -> object:
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(BackendUnavailable, match=r"pip install 'ray\[default\]"):
        import_ray()


class _InterruptedAfterWrite(ResultStore):
    """A store where Ctrl-C lands right after the second row is written, before anyone counts it."""

    writes = 0

    def record(self, row: dict) -> None:
        super().record(row)
        self.writes += 1
        if self.writes == 2:
            raise KeyboardInterrupt


def test_an_interrupt_between_write_and_count_still_reports_every_stored_row(tmp_path: Path) -> None:
    jobs = expand_jobs(parse_suite(SUITE), tmp_path)
    with _InterruptedAfterWrite(tmp_path) as store:
        summary = run_jobs(jobs, store)
        assert summary.interrupted and summary.done == len(store.rows()) == 2
