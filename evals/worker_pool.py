"""Worker processes that each keep `concurrency` episodes running and send every row back the moment it finishes.

The parent holds one pipe per worker and hands a worker a job only when one of its `concurrency` slots is free,
so every job a worker holds is running: no slot waits for a slower neighbour, no finished row waits for a batch
(a Ctrl-C or `kill -9` loses only episodes still running), and when a worker dies exactly the jobs it was running
get an error row while a fresh worker takes over its slots. The parent is the only process that records rows.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from coopgraph.evals.suite import Job
from coopgraph.evals.suite_job import error_row, run_job

if TYPE_CHECKING:
    from multiprocessing.context import ForkServerContext, SpawnContext

JobRunner = Callable[[dict[str, Any]], dict[str, Any]]
OnResult = Callable[[Job, dict[str, Any]], None]

# Imported once by the fork server, so each worker starts warm instead of importing LangChain/DSPy again.
PRELOAD = ["coopgraph.cli", "coopgraph.evals.suite_job", "coopgraph.runtime.launch", "coopgraph.runtime.teams",
           "coopgraph.llm.factory"]
#: How long a stopped or terminated worker gets to exit before the parent moves on.
EXIT_WAIT_S = 10.0


def worker_context() -> ForkServerContext | SpawnContext:
    """`forkserver` where there is one (Linux: workers fork from a clean, pre-imported server), else `spawn`."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _watch_parent(parent_alive: Connection) -> None:
    """Exit as soon as `coopgraph eval` is gone (e.g. `kill -9`). Only the parent holds the other end of
    `parent_alive`, so reading it ends with EOF exactly when the parent dies, whoever forked us."""
    from coopgraph.llm.factory import apply_offline_env

    apply_offline_env()

    def watch() -> None:
        while True:
            try:
                parent_alive.recv()
            except (EOFError, OSError):
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _serve(jobs: Connection, parent_alive: Connection, concurrency: int, runner: JobRunner) -> None:
    """A worker's life: take `(index, job)` from the parent, run it on one of `concurrency` threads, and send
    `(index, row)` back as soon as it finishes, until the parent sends None."""
    # Ctrl-C in a terminal reaches the whole process group; the parent decides what stops, and terminates us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(parent_alive)
    sending = threading.Lock()  # episode threads share the one pipe back

    def run(index: int, job_data: dict[str, Any]) -> None:
        try:
            row = runner(job_data)
        except BaseException as exc:  # noqa: BLE001 - run_job never raises; anything else still owes a row
            row = error_row(Job.model_validate(job_data), f"worker failed: {type(exc).__name__}: {exc}")
        with sending:
            try:
                jobs.send((index, row))
            except OSError:  # the parent is gone
                os._exit(1)
            except Exception as exc:  # noqa: BLE001 - pickling failed, before a byte was written
                jobs.send((index, error_row(Job.model_validate(job_data),
                                            f"worker failed: its row could not be sent: {exc}")))

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="episode") as threads:
        while True:
            try:
                message = jobs.recv()
            except EOFError:  # the parent is gone
                os._exit(1)
            if message is None:
                break
            threads.submit(run, *message)


@dataclass(eq=False)
class _Worker:
    """One worker process, its pipe, and the jobs it is running (handed over, row not yet back) by index."""

    process: BaseProcess
    pipe: Connection
    running: dict[int, Job] = field(default_factory=dict)


def _cause(worker: _Worker) -> str:
    """Why a worker's process ended, for the error rows of the jobs it was running."""
    worker.process.join(EXIT_WAIT_S)
    code = worker.process.exitcode
    if code is None:
        return f"worker process {worker.process.pid} stopped answering"
    if code < 0:
        return f"worker process {worker.process.pid} was killed by {signal.Signals(-code).name}"
    return f"worker process {worker.process.pid} exited with code {code}"


class _Pool:
    """The parent's side: hands out jobs slot by slot, records rows as they arrive, replaces dead workers."""

    def __init__(self, todo: list[Job], concurrency: int, record: OnResult, runner: JobRunner) -> None:
        self.context = worker_context()
        self.parent_alive, self.held_by_parent = self.context.Pipe(duplex=False)
        self.waiting = deque(enumerate(todo))
        self.concurrency, self.record, self.runner = concurrency, record, runner
        self.live: list[_Worker] = []
        self.released: list[_Worker] = []  # told to exit: no job left for them

    def start_worker(self) -> None:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(theirs, self.parent_alive, self.concurrency, self.runner),
                                       name="coopgraph-worker")
        process.start()
        theirs.close()  # the worker holds it now; ours reads EOF once the worker is gone
        worker = _Worker(process, ours)
        self.live.append(worker)
        self.fill(worker)

    def fill(self, worker: _Worker) -> None:
        """Give `worker` jobs until each of its slots runs one; once no job is left and it runs none, release it."""
        while self.waiting and len(worker.running) < self.concurrency:
            index, job = self.waiting.popleft()
            worker.running[index] = job
            try:
                worker.pipe.send((index, job.model_dump()))
            except OSError:  # it died; failing this job too means every death uses up a job, so restarts end
                self.bury(worker)
                return
        if not worker.running:
            self.live.remove(worker)
            self.released.append(worker)
            with contextlib.suppress(OSError):  # already gone, with nothing left to do
                worker.pipe.send(None)

    def receive(self, worker: _Worker) -> bool:
        """Record the row `worker` sent; False when its pipe has ended (the worker died)."""
        try:
            index, row = worker.pipe.recv()
        except (EOFError, OSError):
            return False
        self.record(worker.running.pop(index), row)
        return True

    def bury(self, worker: _Worker) -> None:
        """Record what a dead worker sent before it died and fail the jobs it was still running (`run` starts a
        fresh worker in its place while jobs are left)."""
        while worker.running and worker.pipe.poll() and self.receive(worker):
            pass
        self.live.remove(worker)
        if worker.process.is_alive():
            worker.process.terminate()
        cause = _cause(worker)
        worker.pipe.close()
        for index in sorted(worker.running):
            job = worker.running.pop(index)
            self.record(job, error_row(job, f"worker failed: {cause}"))

    def run(self, workers: int) -> None:
        while True:
            while self.waiting and len(self.live) < workers:  # at the start, and in place of a dead worker
                self.start_worker()
            if not self.live:
                break
            ready = set(wait([handle for w in self.live for handle in (w.pipe, w.process.sentinel)]))
            for worker in list(self.live):
                if worker.pipe in ready:
                    if self.receive(worker):
                        self.fill(worker)
                    else:
                        self.bury(worker)
                elif worker.process.sentinel in ready:
                    self.bury(worker)
        for worker in self.released:
            worker.process.join(EXIT_WAIT_S)
            worker.pipe.close()

    def stop(self) -> None:
        """Terminate every worker (Ctrl-C, a failing store): the episodes they were running stay unrecorded."""
        workers = [*self.live, *self.released]
        for worker in workers:
            if worker.process.is_alive():
                worker.process.terminate()
        for worker in workers:
            worker.process.join(EXIT_WAIT_S)
            if worker.process.is_alive():  # it ignored SIGTERM
                worker.process.kill()
            worker.pipe.close()
        self.live.clear()


def run_pool(todo: list[Job], workers: int, concurrency: int, record: OnResult, runner: JobRunner = run_job) -> None:
    """Run `todo` on `workers` processes with `concurrency` episodes each, calling `record(job, row)` in this
    process as each episode finishes. `runner` (a module-level function, so workers can import it) runs one job."""
    pool = _Pool(todo, concurrency, record, runner)
    try:
        pool.run(workers)
    except BaseException:
        pool.stop()
        raise
    finally:
        pool.held_by_parent.close()  # any worker still alive now reads EOF and leaves
        pool.parent_alive.close()
