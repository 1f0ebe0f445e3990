"""Requests in flight against a model server that answers every request after exactly `latency` seconds: a
4-episode CoELA + CoELA suite on C-WAH at several `--concurrency` values, each run with a fresh response cache so
every call reaches the server.

By default it is issue 37's suite: test/0-3, 10 steps each, against a server that answers every request with one
fixed text ("ok"; the issue's test server did the same: its 132 calls in 40 steps are that density, which the
seeded sampler never reaches). A reply with no option in it makes each planner question take its retries, so a
decision is a chain of 7 calls. `--replies sampled --steps 60` runs the earlier form (the sampler picks options).

Per row: requests the server answered; wall time; issue 37's ideal `calls x latency / concurrency` and the ratio
to it; the same ideal over the requests the run can have in flight (`min(concurrency, episodes) x agents`) and the
ratio to it; the critical-path bound (`throughput_bounds`: a step waits for its slowest agent's chain of calls) and the
ratio to it; the most requests the server held at once; whether the stored results (every result field, by run)
equal the first run's (the sequential one), and whether the rows in the order the report reads them (job order)
do too. The store itself keeps rows in finishing order under concurrency, so a kill loses none that finished.

Run: `python -m coopgraph.evals.bench.throughput [--latency 1] [--concurrency 1 4 8 32] [--steps 10]
[--replies fixed|sampled]`.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from coopgraph.evals.bench.throughput_bounds import (
    EpisodeCalls,
    critical_path_bound,
    episode_calls,
    in_flight_ideal,
    in_flight_slots,
    issue_ideal,
)
from coopgraph.evals.parallel import run_jobs
from coopgraph.evals.report import in_job_order
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import Suite, expand_jobs, parse_suite
from coopgraph.record.trace_file import read_events
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
#: The fixed reply of issue 37's test server: a text with no option in it.
FIXED_REPLY = "ok"
#: What must be equal between a sequential and a concurrent run (the rest is when, where and how long).
RESULT_FIELDS = ("success", "steps", "metrics", "per_agent", "progress", "decisions", "llm_calls", "prompt_tokens",
                 "completion_tokens", "invalid_answers", "model_seeds")


def run_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return row["team"], row["episode"], row["seed"], row["repeat"]


def results(rows: list[dict[str, Any]]) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """Each row's key and result fields, in the rows' order."""
    return [(run_key(r), tuple(r[f] for f in RESULT_FIELDS)) for r in rows]


def measure(suite: Suite, concurrency: int, seen: Seen, folder: Path) -> tuple[list[dict[str, Any]], float, int, int]:
    """Stored rows (in stored order), wall seconds, requests and peak requests in flight for one fresh run."""
    os.environ["COOPGRAPH_CACHE"] = str(folder / "cache")  # a cache of this run's own: every call is asked
    jobs = expand_jobs(suite, folder)
    seen.max_in_flight = 0
    before = seen.requests
    with ResultStore(folder) as store:
        started = time.perf_counter()
        summary = run_jobs(jobs, store, concurrency=concurrency)
        wall = time.perf_counter() - started
        if summary.errors:
            raise SystemExit(f"{summary.errors} episode(s) failed: {summary.error_messages[:2]}")
        return store.rows(), wall, seen.requests - before, seen.max_in_flight


def critical_paths(rows: list[dict[str, Any]]) -> dict[str, EpisodeCalls]:
    """Each episode's requests and critical path, read from its trace, by episode."""
    return {r["episode"]: episode_calls(read_events(Path(r["trace_path"]))) for r in rows}


def warm_up(suite: Suite, reply: str | None, folder: Path) -> None:
    """One untimed step of the suite's first episode against an instant server, so that the first timed run is
    not charged with importing LangChain, LangGraph, DSPy and Chroma (seconds here, where no bytecode is cached)."""
    first = suite.model_copy(update={"episodes": suite.episode_ids()[:1], "max_steps": 1})
    with sampling_server(reply=reply) as (url, seen):
        os.environ["OPENAI_BASE_URL"] = url
        measure(first, 1, seen, folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the server takes for every request")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 32])
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--replies", choices=("fixed", "sampled"), default="fixed",
                        help=f"fixed: every request answered {FIXED_REPLY!r} (issue 37's server); sampled: a listed "
                             "option picked by the request's seed and prompt")
    args = parser.parse_args()
    if args.latency <= 0:
        raise SystemExit("--latency must be above 0: the ideals divide by it")
    suite = parse_suite(SUITE.format(episodes=", ".join(f"test/{i}" for i in range(args.episodes)),
                                     steps=args.steps))
    os.environ.pop("OPENAI_API_KEY", None)
    reply = FIXED_REPLY if args.replies == "fixed" else None
    print(f"{args.episodes} episodes of CoELA + CoELA on C-WAH, {args.steps} steps each; every request answered "
          f"after {args.latency:g} s with {repr(reply) if reply else 'a seeded pick'}")
    print(f"{'concurrency':>11}{'calls':>7}{'wall s':>9}{'ideal s':>9}{'ratio':>7}{'slots':>6}{'ideal s':>9}"
          f"{'ratio':>7}{'path s':>8}{'ratio':>7}{'peak':>6}  same results  same report order  same stored order")
    first: list[dict[str, Any]] | None = None
    paths: dict[str, EpisodeCalls] = {}
    with tempfile.TemporaryDirectory() as tmp:
        warm_up(suite, reply, Path(tmp) / "warm-up")
        with sampling_server(latency_s=args.latency, reply=reply) as (url, seen):
            os.environ["OPENAI_BASE_URL"] = url
            for concurrency in args.concurrency:
                rows, wall, calls, peak = measure(suite, concurrency, seen, Path(tmp) / f"c{concurrency}")
                paths = critical_paths(rows)
                ideal = issue_ideal(calls, args.latency, concurrency)
                slots = in_flight_slots(concurrency, args.episodes, TEAM_SIZE)
                filled = in_flight_ideal(calls, args.latency, concurrency, args.episodes, TEAM_SIZE)
                path = critical_path_bound([p.critical_path for p in paths.values()], args.latency, concurrency)
                first = first if first is not None else rows
                same = sorted(results(rows)) == sorted(results(first))
                same_report = results(in_job_order(rows, suite)) == results(in_job_order(first, suite))
                same_stored = results(rows) == results(first)
                print(f"{concurrency:>11}{calls:>7}{wall:>9.1f}{ideal:>9.1f}{wall / ideal:>7.2f}{slots:>6}"
                      f"{filled:>9.1f}{wall / filled:>7.2f}{path:>8.1f}"
                      f"{wall / path:>7.2f}{peak:>6}  {'yes' if same else 'NO':<12}  "
                      f"{'yes' if same_report else 'NO':<17}  {'yes' if same_stored else 'no (finishing order)'}",
                      flush=True)
    print("critical path per episode, requests in a row (of all its requests): " + ", ".join(
        f"{episode} {p.critical_path} ({p.calls})" for episode, p in sorted(paths.items())))


if __name__ == "__main__":
    main()
