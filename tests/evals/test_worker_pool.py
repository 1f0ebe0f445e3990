"""Worker processes without batch barriers: each worker keeps `concurrency` episodes running, every row is recorded
the moment its episode finishes, and a worker that dies costs error rows only for the episodes it was running.

The job runners below stand in for `run_job` inside real worker processes (module-level, so workers import them).
They talk to the test through marker files in the jobs' out folder, and wait with a generous deadline only so that
a broken pool fails the test instead of hanging it.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.suite import Job, expand_jobs, parse_suite
from coopgraph.evals.worker_pool import run_pool

SUITE = """\
name: pool
environment: {name: cwah}
episodes: [%s]
teams:
  - label: pair
    members: [mhp, mhp]
"""
GIVE_UP_S = 60.0


def _jobs(tmp_path: Path, count: int) -> list[Job]:
    episodes = ", ".join(f"test/{i}" for i in range(count))
    return expand_jobs(parse_suite(SUITE % episodes), tmp_path)


def _marker(job_data: dict[str, Any], kind: str, episode: str | None = None) -> Path:
    name = (episode or job_data["episode"]).replace("/", "-")
    return Path(job_data["out_dir"]) / kind / name


def _touch(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _wait_for(found: Any) -> bool:
    deadline = time.monotonic() + GIVE_UP_S
    while not found():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _row(job_data: dict[str, Any], status: str = "done", **extra: Any) -> dict[str, Any]:
    return {"episode": job_data["episode"], "status": status, "pid": os.getpid(), **extra}


def wait_for_test_1_recorded(job_data: dict[str, Any]) -> dict[str, Any]:
    """test/0 finishes only once the parent has recorded test/1, which runs beside it in the same worker."""
    if job_data["episode"] != "test/0":
        return _row(job_data)
    return _row(job_data, saw=_wait_for(_marker(job_data, "recorded", "test/1").exists))


def kill_own_worker_beside_a_partner(job_data: dict[str, Any]) -> dict[str, Any]:
    """test/0 kills its worker once another job runs in the same process; the others wait until that death has
    been recorded, so at the kill its worker runs exactly two jobs."""
    out = Path(job_data["out_dir"])
    _touch(_marker(job_data, "started"), str(os.getpid()))
    if job_data["episode"] == "test/0":
        def partner_running() -> bool:
            return any(p.read_text() == str(os.getpid()) for p in (out / "started").iterdir() if p.name != "test-0")

        if _wait_for(partner_running):
            os.kill(os.getpid(), signal.SIGKILL)
        return _row(job_data, "error", error="no partner ever ran beside test/0")
    released = _wait_for((out / "released").exists)
    return _row(job_data, "done" if released else "error", error=None if released else "never released")


def raise_on_test_1(job_data: dict[str, Any]) -> dict[str, Any]:
    if job_data["episode"] == "test/1":
        raise ValueError("the runner broke")
    return _row(job_data)


def _live_workers() -> list[multiprocessing.process.BaseProcess]:
    return [p for p in multiprocessing.active_children() if "forkserver" not in p.name.lower()]


def test_a_row_is_recorded_when_its_episode_ends_not_when_its_neighbour_does(tmp_path: Path) -> None:
    recorded: list[tuple[str, dict[str, Any]]] = []

    def record(job: Job, row: dict[str, Any]) -> None:
        recorded.append((job.episode, row))
        _touch(_marker(job.model_dump(), "recorded"))

    run_pool(_jobs(tmp_path, 2), 1, 2, record, runner=wait_for_test_1_recorded)
    assert [episode for episode, _ in recorded] == ["test/1", "test/0"]
    assert recorded[1][1]["saw"], "test/1's row was held back until test/0 finished"
    assert recorded[0][1]["pid"] == recorded[1][1]["pid"]  # both ran at once in the one worker


def test_a_killed_worker_fails_only_the_jobs_it_was_running_and_the_rest_go_on(tmp_path: Path) -> None:
    jobs = _jobs(tmp_path, 7)
    rows: dict[str, dict[str, Any]] = {}

    def record(job: Job, row: dict[str, Any]) -> None:
        assert job.episode not in rows, f"{job.episode} recorded twice"
        rows[job.episode] = row
        if row["status"] == "error":
            _touch(tmp_path / "released")

    run_pool(jobs, 2, 2, record, runner=kill_own_worker_beside_a_partner)
    killed_pid = (tmp_path / "started" / "test-0").read_text()
    beside = {p.name.replace("-", "/") for p in (tmp_path / "started").iterdir() if p.read_text() == killed_pid}
    assert len(beside) == 2  # test/0 and the one partner it waited for
    assert set(rows) == {job.episode for job in jobs}
    failed = {episode for episode, row in rows.items() if row["status"] == "error"}
    assert failed == beside
    for episode in failed:
        assert rows[episode]["error"] == f"worker failed: worker process {killed_pid} was killed by SIGKILL"
    assert all(row["pid"] != int(killed_pid) for row in rows.values() if row["status"] == "done")
    assert not _live_workers()


def test_a_runner_that_raises_costs_its_own_job_only(tmp_path: Path) -> None:
    rows: dict[str, dict[str, Any]] = {}
    run_pool(_jobs(tmp_path, 4), 2, 2, lambda job, row: rows.setdefault(job.episode, row), runner=raise_on_test_1)
    assert rows["test/1"]["status"] == "error"
    assert rows["test/1"]["error"] == "worker failed: ValueError: the runner broke"
    assert [rows[f"test/{i}"]["status"] for i in (0, 2, 3)] == ["done"] * 3


def test_an_interrupt_while_recording_terminates_every_worker(tmp_path: Path) -> None:
    def record(job: Job, row: dict[str, Any]) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_pool(_jobs(tmp_path, 6), 2, 2, record, runner=raise_on_test_1)
    assert not _live_workers()
