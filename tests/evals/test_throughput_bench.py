"""The throughput benchmark's ideals: requests counted from a trace, the critical path a synchronous step allows,
and the suite's bound at each concurrency."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.evals.bench.throughput import results
from coopgraph.evals.bench.throughput_bounds import (
    EpisodeCalls,
    critical_path_bound,
    episode_calls,
    in_flight_ideal,
    in_flight_slots,
    issue_ideal,
)


def call(agent: str, *, cache_hit: bool = False) -> dict[str, Any]:
    return {"type": "llm_call", "agent": agent, "cache_hit": cache_hit}


def step(n: int) -> dict[str, Any]:
    return {"type": "env_step", "step": n}


def test_a_step_costs_its_longest_chain_and_cached_replies_cost_nothing() -> None:
    events = [
        {"type": "episode_start"},
        call("alice"), call("bob"), call("alice"), call("alice"), call("bob"), step(1),  # alice 3, bob 2
        step(2),  # nobody asked: a walk goes on
        call("bob"), call("bob", cache_hit=True), step(3),  # the cache answered one: bob 1
        call("alice"), call("bob"), step(4),
        {"type": "episode_end"},
    ]
    calls = episode_calls(events)
    assert calls.chains == (3, 0, 1, 1)
    assert (calls.calls, calls.critical_path) == (8, 5)


def test_requests_after_the_last_step_are_a_chain_of_their_own() -> None:
    assert episode_calls([call("alice"), step(1), call("bob"), call("bob")]).chains == (1, 2)
    assert episode_calls([]) == EpisodeCalls(calls=0, critical_path=0, chains=())


def test_issue_ideal_spreads_every_call_over_the_slots() -> None:
    assert issue_ideal(133, 1.0, 8) == pytest.approx(16.625)
    assert issue_ideal(133, 0.5, 1) == pytest.approx(66.5)


@pytest.mark.parametrize(("concurrency", "bound"), [
    (1, 77.0),  # one episode at a time: their paths add up
    (2, 38.5),  # two slots: the total split in two is longer than any one episode
    (4, 21.0),  # every episode at once: the longest one
    (8, 21.0),  # more slots than episodes change nothing
    (32, 21.0),
])
def test_suite_bound_is_its_longest_episode_or_its_total_over_the_slots(concurrency: int, bound: float) -> None:
    assert critical_path_bound([21, 14, 21, 21], 1.0, concurrency) == pytest.approx(bound)


def test_suite_bound_scales_with_latency_and_is_zero_for_no_episodes() -> None:
    assert critical_path_bound([21, 14, 21, 21], 0.5, 8) == pytest.approx(10.5)
    assert critical_path_bound([], 1.0, 8) == 0.0


def test_results_keep_the_rows_order_so_a_reordering_is_seen() -> None:
    fields = {"success": 0.0, "steps": 10, "metrics": {}, "per_agent": {}, "progress": [], "decisions": 3,
              "llm_calls": 35, "prompt_tokens": 1, "completion_tokens": 1, "invalid_answers": 3, "model_seeds": {}}
    first = {"team": "t", "episode": "test/0", "seed": 0, "repeat": 0, **fields}
    second = {**first, "episode": "test/1"}
    assert results([first, second]) != results([second, first])
    assert sorted(results([first, second])) == sorted(results([second, first]))


def test_in_flight_ideal_counts_the_requests_the_run_can_hold() -> None:
    """Episodes running at once ask with both agents: one episode holds 2 requests, 4 episodes hold 8 at most, so
    concurrency 32 is no better than 4 there."""
    assert in_flight_slots(1, 4, 2) == 2 and in_flight_slots(4, 4, 2) == 8 and in_flight_slots(32, 4, 2) == 8
    assert in_flight_ideal(133, 1.0, 1, 4, 2) == pytest.approx(66.5)
    assert in_flight_ideal(133, 1.0, 32, 4, 2) == issue_ideal(133, 1.0, 8)
