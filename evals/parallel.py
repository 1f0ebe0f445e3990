"""Runs suite jobs: inline, in worker processes, or (evals/ray_backend.py) as Ray tasks.

`concurrency` keeps that many episodes running at once in each process, on threads: an episode spends its time
waiting for a model server, and the LLM stack is synchronous, so a thread per episode keeps N requests in flight
without an event loop (the embedded model's turn lock still lets one llama.cpp server compute at a time). Rows are
recorded as episodes finish (a kill loses none that finished), so their order in the store is finishing order;
the report reads a suite's rows in job order (`report.in_job_order`), so it does not depend on it.

The parent is the only process that writes the store: each finished job is recorded the moment it
arrives, so an interruption loses at most the jobs that were still running. With `workers`, each worker process
keeps `concurrency` episodes running and sends each row back as its episode ends (evals/worker_pool.py); workers
watch their parent and exit when it dies, so a `kill -9` of `coopgraph eval` leaves no orphans that keep burning
the LLM.

An episode some of whose questions went without a model answer is stored failed with why, unless the run was asked
to count it (`count_unanswered`), and rows kept done before are judged the same way first (`evals/unanswered.py`):
so a rerun plays such an episode again and every reader of the store agrees on what was measured.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from coopgraph.evals.store import KEY_COLUMNS, ResultStore
from coopgraph.evals.suite import Job
from coopgraph.evals.suite_job import run_job
from coopgraph.evals.unanswered import judged, marked_not_counted, settle_stored, unanswered
from coopgraph.evals.worker_pool import OnResult, run_pool


@dataclass
class RunSummary:
    """What a call to `run_jobs` did."""

    total: int = 0
    skipped: int = 0  # already in the store
    done: int = 0
    errors: int = 0
    interrupted: bool = False
    error_messages: list[str] = field(default_factory=list)
    not_counted: list[str] = field(default_factory=list)  # `team episode seed N: why`, played partly without a model
    marked_kept: int = 0  # rows stored done before that went partly without their model: marked failed, played again


def pending_jobs(jobs: list[Job], store: ResultStore) -> tuple[list[Job], int]:
    """Jobs not yet finished in the store, and how many were skipped."""
    done = store.done_keys()
    todo = [job for job in jobs if job.key not in done]
    return todo, len(jobs) - len(todo)


def start_shared_llm_servers(jobs: list[Job]) -> list[str]:
    """Start the embedded model's servers (one per slot) here, before workers exist, so they all find them running."""
    from coopgraph.llm.settings import parse_setting

    started = []
    for setting in sorted({s for job in jobs for s in job.llms if s}):
        settings = parse_setting(setting)
        if settings.kind == "local":
            from coopgraph.llm.server import local_url

            for slot in range(settings.slots):
                local_url(settings, slot)
            started.append(setting)
    return started


def _record(store: ResultStore, summary: RunSummary, job: Job, row: dict[str, Any],
            on_result: OnResult | None, count_unanswered: bool) -> None:
    row = judged(row, count_unanswered=count_unanswered)
    store.record(row)
    if row.get("status") == "done":
        summary.done += 1
    else:
        summary.errors += 1
        summary.error_messages.append(f"{job.team} {job.episode} seed {job.seed}: {str(row.get('error'))[:300]}")
        missing = unanswered(row)
        if marked_not_counted(row) and missing is not None:
            summary.not_counted.append(f"{job.team} {job.episode} seed {job.seed}: {missing.text}")
    if on_result is not None:
        on_result(job, row)


class ConcurrencyInvalid(ValueError):
    """`concurrency` below 1."""


def check_concurrency(concurrency: int) -> None:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConcurrencyInvalid(f"--concurrency must be a whole number of 1 or more (episodes at once per process), "
                                 f"got {concurrency!r}")


def kept_rows(jobs: list[Job], store: ResultStore) -> list[dict[str, Any]]:
    """The store's rows (done or failed) of `jobs`."""
    keys = {job.key for job in jobs}
    return [row for suite in dict.fromkeys(job.suite for job in jobs) for row in store.rows(suite=suite, status=None)
            if tuple(row[column] for column in KEY_COLUMNS) in keys]


def run_jobs(jobs: list[Job], store: ResultStore, *, workers: int = 1, backend: str = "local",
             concurrency: int = 1, ray_address: str | None = None, on_result: OnResult | None = None,
             on_start: Callable[[int], None] | None = None, count_unanswered: bool = False) -> RunSummary:
    """Run what the store does not have yet; `on_start(n)` is told how many will run. Each process (this one, a
    worker) or Ray CPU runs up to `concurrency` episodes at once; `ray_address` (else RAY_ADDRESS) names a cluster.
    An episode played partly without its model is stored failed (played again by a rerun) unless
    `count_unanswered`; kept rows are judged the same way before the run decides what is left to do."""
    check_concurrency(concurrency)
    marked = settle_stored(store, kept_rows(jobs, store), count_unanswered=count_unanswered)
    todo, skipped = pending_jobs(jobs, store)
    summary = RunSummary(total=len(jobs), skipped=skipped, marked_kept=len(marked))
    if on_start is not None:
        on_start(len(todo))
    if not todo:
        return summary

    def record(job: Job, row: dict[str, Any]) -> None:
        _record(store, summary, job, row, on_result, count_unanswered)

    try:
        if backend == "ray":
            from coopgraph.evals.ray_backend import run_on_ray

            start_shared_llm_servers(todo)
            run_on_ray(todo, record, address=ray_address,
                       concurrency=concurrency)
        elif workers <= 1 and concurrency <= 1:
            for job in todo:
                record(job, run_job(job.model_dump()))
        elif workers <= 1:
            start_shared_llm_servers(todo)
            _run_on_threads(todo, concurrency, record)
        else:
            start_shared_llm_servers(todo)
            run_pool(todo, workers, concurrency, record)
    except KeyboardInterrupt:
        # The signal can land between a row's write and its count, so count what the store holds.
        summary.interrupted = True
        summary.done = len({job.key for job in todo} & store.done_keys())
    return summary


def _run_on_threads(todo: list[Job], in_flight: int, record: OnResult) -> None:
    """Keep `in_flight` jobs running on threads of this process and record each as it finishes. The threads are
    daemons: after Ctrl-C nothing new starts and the process exits without waiting for the episodes still asking
    their model (they are not recorded, so a rerun runs them)."""
    finished: queue.Queue[tuple[int, dict[str, Any]]] = queue.Queue()

    def run(index: int) -> None:
        finished.put((index, run_job(todo[index].model_dump())))  # run_job never raises

    position = running = 0
    while position < len(todo) or running:
        while position < len(todo) and running < in_flight:
            threading.Thread(target=run, args=(position,), daemon=True, name=f"episode-{position}").start()
            position, running = position + 1, running + 1
        index, row = finished.get()
        running -= 1
        record(todo[index], row)
