"""`coopgraph eval` survives `kill -9`, Ctrl-C and SIGTERM: finished episodes are kept and skipped, the rest rerun.

These start the real command in its own process group, interrupt it once at least one row is stored, and
rerun it; every episode must then appear exactly once and rows from before must be the very same rows.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.record.trace_file import read_events

runner = CliRunner()

SUITE = """\
name: resume-check
environment: {name: cwah}
episodes: [%s]
seeds: [%s]
teams:
  - label: pair
    members: [mhp, mhp]
  - label: quiet pair
    members: [mhp-silent, mhp-silent]
"""
EPISODES = [f"train/{i}" for i in range(16)]
TOTAL = 2 * len(EPISODES)
SEEDS_FOR_IN_PROCESS = 4  # an in-process interrupt lands later on a busy machine: give it a longer run to hit


def _suite(tmp_path: Path, seeds: int = 1) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE % (", ".join(EPISODES), ", ".join(str(s) for s in range(seeds))), encoding="utf-8")
    return path


def _command(suite: Path, out: Path, workers: int) -> list[str]:
    return [sys.executable, "-m", "coopgraph", "eval", str(suite), "--out", str(out), "--workers", str(workers),
            "--json"]


def _stored(out: Path) -> dict[tuple, tuple]:
    """Done rows by key → (run id, finished at, pid); reads through WAL like any other reader. Not read-only: after
    a kill -9 of the writer, SQLite recovers the WAL index on the next connection, which a `mode=ro` connection may
    not do, and then it misses rows the killed writer had committed."""
    db = out / "results.sqlite"
    if not db.exists():
        return {}
    try:
        conn = sqlite3.connect(db, timeout=5)
        rows = conn.execute("SELECT suite, team, episode, seed, repeat, config_hash, run_id, finished_at, pid "
                            "FROM runs WHERE status = 'done'").fetchall()
        conn.close()
    except sqlite3.OperationalError:  # the schema is still being created
        return {}
    return {tuple(r[:6]): tuple(r[6:]) for r in rows}


def _start_and_interrupt(command: list[str], out: Path, sig: signal.Signals, log: Path) -> subprocess.Popen:
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while not _stored(out):
            assert process.poll() is None, f"eval ended before it could be interrupted:\n{log.read_text()}"
            assert time.monotonic() < deadline, "no row was stored within 120 s"
            time.sleep(0.02)
        process.send_signal(sig)
        process.wait(timeout=60)
    except BaseException:
        _kill_group(process.pid)
        raise
    return process


def _pool_workers() -> list:
    """Worker processes of this test process still alive (the fork server itself may stay)."""
    import multiprocessing

    return [p for p in multiprocessing.active_children() if "forkserver" not in p.name.lower()]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def _rerun(suite: Path, out: Path) -> dict:
    """The second run, in-process (the interrupted one was a real process)."""
    result = runner.invoke(app, ["eval", str(suite), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _check_complete(out: Path, before: dict[tuple, tuple], total: int = TOTAL) -> None:
    after = _stored(out)
    assert len(after) == total
    assert {k[2] for k in after} == set(EPISODES)
    for key, (run_id, finished_at, pid) in before.items():
        assert after[key] == (run_id, finished_at, pid), "a row finished before the interruption was redone"
    conn = sqlite3.connect(out / "results.sqlite")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == total  # exactly once each, no strays
    for (trace,) in conn.execute("SELECT trace_path FROM runs"):
        kinds = [e["type"] for e in read_events(trace)]
        assert kinds.count("episode_start") == 1 and kinds[-1] == "run_summary", trace
    conn.close()


def test_kill_9_mid_run_then_rerun_keeps_finished_rows_and_runs_each_episode_once(tmp_path: Path) -> None:
    suite, out = _suite(tmp_path), tmp_path / "out"
    process = _start_and_interrupt(_command(suite, out, 2), out, signal.SIGKILL, tmp_path / "first.log")
    try:
        assert process.returncode == -signal.SIGKILL
        deadline = time.monotonic() + 20  # the workers notice their parent is gone and leave by themselves
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _group_alive(process.pid), "worker processes outlived the killed eval"
    finally:
        _kill_group(process.pid)
    before = _stored(out)
    assert 0 < len(before) < TOTAL, f"{len(before)} of {TOTAL} rows: the kill came too late to test resuming"
    assert process.pid not in {pid for _, _, pid in before.values()}  # episodes ran in worker processes
    payload = _rerun(suite, out)
    assert payload["skipped_done"] == len(before) and payload["ran"] == TOTAL - len(before)
    assert payload["errors"] == 0 and not payload["interrupted"]
    _check_complete(out, before)


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stops_workers_cleanly_with_exit_130_and_a_rerun_finishes(tmp_path: Path, how: str) -> None:
    suite, out, total = _suite(tmp_path, SEEDS_FOR_IN_PROCESS), tmp_path / "out", TOTAL * SEEDS_FOR_IN_PROCESS

    def interrupt_after_the_first_row() -> None:
        deadline = time.monotonic() + 120
        while not _stored(out) and time.monotonic() < deadline:
            time.sleep(0.01)
        # Ctrl-C is a real SIGINT (the terminal sends it), which wakes a blocked main thread where
        # `_thread.interrupt_main()` would only set a flag; SIGTERM is what `timeout`, `kill` and schedulers send
        os.kill(os.getpid(), signal.SIGINT if how == "ctrl-c" else signal.SIGTERM)

    # a CLI process starts with Python's own SIGINT handler; earlier tests in this process may have replaced it
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt_after_the_first_row, daemon=True).start()
        result = runner.invoke(app, ["eval", str(suite), "--out", str(out), "--workers", "2", "--json"])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.exit_code == 130, result.output
    deadline = time.monotonic() + 20
    while _pool_workers() and time.monotonic() < deadline:  # terminated, not left running
        time.sleep(0.1)
    assert not _pool_workers()
    payload = json.loads(result.stdout)
    assert payload["interrupted"] and payload["errors"] == 0
    assert "rerun the same command to resume" in result.stderr
    before = _stored(out)
    assert 0 < len(before) < total and payload["done"] == len(before)
    assert _rerun(suite, out)["skipped_done"] == len(before)
    _check_complete(out, before, total)
