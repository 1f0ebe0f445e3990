"""Requests in flight against a model server that answers every request after exactly `latency` seconds: a
4-episode CoELA + CoELA suite on C-WAH (60 steps each: about the 132 model calls of issue 37's measurement) at
several `--concurrency` values, each with a fresh response cache so every call reaches the server.

Per row: model calls; wall time; the ideal `calls x latency / limit` and the ratio of wall time to it for two
in-flight limits: episodes at once (issue 37's reading: one request per episode, as for `--workers N`) and
episodes at once x agents per team (every agent of every running episode asking at every moment, which a step
that waits for its slowest agent never reaches); the most requests the server held at once; and whether the
stored results equal the sequential run's (the first concurrency given).

Run: `python -m coopgraph.evals.bench.throughput [--latency 1] [--concurrency 1 4 8 32] [--steps 60]`.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from coopgraph.evals.parallel import run_jobs
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, parse_suite
from coopgraph.testing.sampling_server import Seen, sampling_server

SUITE = """\
name: throughput
environment: {{name: cwah}}
episodes: [{episodes}]
max_steps: {steps}
llm: vllm:sampler
teams:
  - label: CoELA + CoELA
    members: [coela, coela]
"""
TEAM_SIZE = 2
#: What must be equal between a sequential and a concurrent run (the rest is when, where and how long).
RESULT_FIELDS = ("success", "steps", "metrics", "per_agent", "progress", "decisions", "llm_calls", "prompt_tokens",
                 "completion_tokens", "invalid_answers", "model_seeds")


def results(rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    return {(r["team"], r["episode"], r["seed"], r["repeat"]): tuple(r[f] for f in RESULT_FIELDS) for r in rows}


def measure(suite: str, concurrency: int, seen: Seen, folder: Path) -> tuple[list[dict[str, Any]], float, int]:
    """Stored rows, wall seconds and peak requests in flight for one fresh run."""
    os.environ["COOPGRAPH_CACHE"] = str(folder / "cache")  # a cache of this run's own: every call is asked
    jobs = expand_jobs(parse_suite(suite), folder)
    seen.max_in_flight = 0
    with ResultStore(folder) as store:
        started = time.perf_counter()
        summary = run_jobs(jobs, store, concurrency=concurrency)
        wall = time.perf_counter() - started
        if summary.errors:
            raise SystemExit(f"{summary.errors} episode(s) failed: {summary.error_messages[:2]}")
        return store.rows(), wall, seen.max_in_flight


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the server takes for every request")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 32])
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    suite = SUITE.format(episodes=", ".join(f"test/{i}" for i in range(args.episodes)), steps=args.steps)
    os.environ.pop("OPENAI_API_KEY", None)
    print(f"{args.episodes} episodes of CoELA + CoELA on C-WAH, {args.steps} steps each; every request answered "
          f"after {args.latency:g} s")
    print(f"{'concurrency':>11}{'calls':>7}{'wall s':>9}{'episodes':>9}{'ideal s':>9}{'ratio':>7}{'requests':>9}"
          f"{'ideal s':>9}{'ratio':>7}{'peak':>6}  same results")
    baseline: dict[tuple[Any, ...], tuple[Any, ...]] | None = None
    with sampling_server(latency_s=args.latency) as (url, seen), tempfile.TemporaryDirectory() as tmp:
        os.environ["OPENAI_BASE_URL"] = url
        for concurrency in args.concurrency:
            rows, wall, peak = measure(suite, concurrency, seen, Path(tmp) / f"c{concurrency}")
            calls = sum(int(r["llm_calls"]) for r in rows)
            episodes = min(concurrency, args.episodes)
            requests = episodes * TEAM_SIZE
            by_episode, by_request = calls * args.latency / episodes, calls * args.latency / requests
            same = results(rows)
            baseline = baseline if baseline is not None else same
            print(f"{concurrency:>11}{calls:>7}{wall:>9.1f}{episodes:>9}{by_episode:>9.1f}{wall / by_episode:>7.2f}"
                  f"{requests:>9}{by_request:>9.1f}{wall / by_request:>7.2f}{peak:>6}  "
                  f"{'yes' if same == baseline else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
