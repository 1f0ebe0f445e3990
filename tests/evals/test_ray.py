"""`--backend ray` on a real local Ray instance (2 CPUs, no dashboard): a suite runs on it, a worker process killed
mid-suite loses nothing, an interrupted run resumes with each episode stored exactly once, and a cluster address
that does not answer is refused quickly with the address in the message (issue 37). About 15-30 s on 2 cores,
most of it Ray starting."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.parallel import run_jobs
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, load_suite

ray = pytest.importorskip("ray", reason="ray is in the locked extras `make setup` installs")
runner = CliRunner()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # nothing listens on it once the probe is closed


def test_a_killed_worker_and_an_interrupted_run_lose_nothing_and_repeat_nothing(tmp_path: Path,
                                                                              local_ray: None) -> None:
    suite, _, _ = load_suite("cwah-baselines")
    jobs = expand_jobs(suite, tmp_path, limit=2)
    killed: list[int] = []

    def kill_then_interrupt(job: Any, row: dict[str, Any]) -> None:
        if not killed:  # the worker that ran the first episode has usually started another: kill it mid-task
            killed.append(row["pid"])
            os.kill(row["pid"], signal.SIGKILL)
        elif len(killed) == 1:
            killed.append(0)
            raise KeyboardInterrupt  # and then the driver is stopped, as by Ctrl-C

    with ResultStore(tmp_path) as store:
        first = run_jobs(jobs, store, backend="ray", on_result=kill_then_interrupt)
    assert first.interrupted and 0 < first.done < len(jobs) and killed[0] != os.getpid()

    # The killed worker's death is reported by this process's Ray driver thread, on whatever sys.stdout is when the
    # report arrives: give it time to arrive here, so it is not printed inside the command's own output below (a
    # real `coopgraph eval` process is its own driver, and its --json redirect covers its whole run).
    time.sleep(5)
    # The same suite through the command resumes it on the same Ray instance.
    result = runner.invoke(app, ["eval", "cwah-baselines", "--backend", "ray", "--limit", "2", "--out",
                                 str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["skipped_done"] == first.done and payload["done"] + first.done == len(jobs)
    conn = sqlite3.connect(tmp_path / "results.sqlite")
    keys = conn.execute("SELECT team, episode, seed, repeat, config_hash FROM runs WHERE status = 'done'").fetchall()
    pids = {pid for (pid,) in conn.execute("SELECT pid FROM runs")}
    conn.close()
    assert len(keys) == len(set(keys)) == len(jobs)  # each episode stored exactly once
    assert os.getpid() not in pids  # they ran in Ray's worker processes


@pytest.mark.parametrize("where", ["flag", "environment"])
def test_a_ray_address_that_does_not_answer_fails_quickly_naming_it(tmp_path: Path, where: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    args = ["eval", "cwah-baselines", "--backend", "ray", "--limit", "1", "--out", str(tmp_path / "out")]
    if where == "flag":
        args += ["--ray-address", address]
    else:
        monkeypatch.setenv("RAY_ADDRESS", address)
    started = time.monotonic()
    result = runner.invoke(app, args)
    assert time.monotonic() - started < 30
    assert result.exit_code == 2 and f"Ray address {address} does not answer" in result.output, result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1
    assert not (tmp_path / "out").exists()


def test_a_ray_address_that_is_not_host_and_port_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "cwah-baselines", "--backend", "ray", "--ray-address", "nowhere",
                                 "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "Ray address 'nowhere' is not host:port" in result.output, result.output
