"""How fast `coopgraph eval` gets through baseline episodes: in-process versus worker processes, and what a
resume costs when everything is already stored (startup, suite expansion and the store look-up).

Run: `python -m coopgraph.evals.bench.eval_throughput [--workers 1 2 4] [--episodes train]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from coopgraph.evals.parallel import run_jobs
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, parse_suite

SUITE = """\
name: throughput
environment: {{name: cwah}}
episodes: {episodes}
teams:
  - label: MHP + MHP
    members: [mhp, mhp]
  - label: MHP
    members: [mhp]
"""


def measure(workers: int, episodes: str) -> tuple[int, float, float]:
    """(jobs, seconds for a fresh run, seconds for a rerun that skips everything)."""
    with tempfile.TemporaryDirectory() as folder:
        jobs = expand_jobs(parse_suite(SUITE.format(episodes=episodes)), Path(folder))
        with ResultStore(folder) as store:
            started = time.perf_counter()
            summary = run_jobs(jobs, store, workers=workers)
            fresh = time.perf_counter() - started
            started = time.perf_counter()
            again = run_jobs(jobs, store, workers=workers)
            resumed = time.perf_counter() - started
        assert summary.done == len(jobs) and again.skipped == len(jobs)
    return len(jobs), fresh, resumed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--episodes", default="test", help="episode set or a YAML list such as [test/0, test/1]")
    args = parser.parse_args()
    print(f"{'workers':>8}{'jobs':>6}{'fresh s':>10}{'jobs/s':>8}{'resume s':>10}")
    for workers in args.workers:
        jobs, fresh, resumed = measure(workers, args.episodes)
        print(f"{workers:>8}{jobs:>6}{fresh:>10.2f}{jobs / fresh:>8.1f}{resumed:>10.3f}")


if __name__ == "__main__":
    main()
