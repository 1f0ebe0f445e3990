"""The model's pace from trace events (`evals/bench/decision_pace.py`): calls belong to their agent's next decision,
cache hits cost nothing, and decisions the model did not compute are not counted."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.evals.bench.decision_pace import DecisionPace, PaceCounter, decision_pace


def call(agent: str, latency: float, hit: bool = False, **extra: Any) -> dict[str, Any]:
    return {"type": "llm_call", "agent": agent, "latency_s": latency, "cache_hit": hit, **extra}


def plan(agent: str) -> dict[str, Any]:
    return {"type": "plan", "agent": agent, "plan": "wait."}


def test_calls_count_toward_their_own_agents_next_decision_and_cache_hits_cost_nothing() -> None:
    events = [
        call("alice", 30.0), call("bob", 12.0),  # interleaved: each belongs to its own agent's decision
        {"type": "env_step", "step": 0},
        plan("alice"),  # 30 s
        call("bob", 0.001, hit=True), call("bob", 8.0), plan("bob"),  # 12 + 8 s; the hit adds nothing
        call("alice", 0.002, hit=True), plan("alice"),  # answered by the cache alone: not counted
        plan("bob"),  # one option left, taken without a call: not counted either
        call("alice", 40.0), plan("alice"),  # 40 s
        call("alice", 99.0),  # after the last decision (the episode ended): no decision to charge
    ]
    pace = decision_pace(events)
    assert pace == DecisionPace(decisions=5, computed=3, cached=1, seconds=90.0)
    assert pace.seconds_per_decision == pytest.approx(30.0)
    assert DecisionPace(4, 0, 4, 0.0).seconds_per_decision is None
    assert pace + DecisionPace(2, 1, 0, 10.0) == DecisionPace(7, 4, 1, 100.0)


def test_the_counter_reports_each_computed_decision_as_it_closes_and_what_is_under_way() -> None:
    counter = PaceCounter()
    assert counter.hear(call("alice", 2.5)) is None and counter.under_way("alice") == 2.5
    assert counter.under_way("bob") == 0.0
    assert counter.hear(plan("alice")) == 2.5 and counter.under_way("alice") == 0.0
    assert counter.hear(call("alice", 1.0, hit=True)) is None and counter.hear(plan("alice")) is None
    assert counter.pace == DecisionPace(2, 1, 1, 2.5)


def test_a_forks_copied_prefix_is_not_this_runs_pace() -> None:
    copied = [call("alice", 5.0, forked_prefix=True), plan("alice") | {"forked_prefix": True}]
    assert decision_pace([*copied, call("alice", 3.0), plan("alice")]) == DecisionPace(1, 1, 0, 3.0)
