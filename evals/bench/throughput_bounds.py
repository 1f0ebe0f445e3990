"""The ideals a throughput measurement is compared with, from a suite's traces.

Two ideals, because they answer different questions. Issue 37's `calls x latency / concurrency` assumes every
one of `concurrency` request slots is busy all the time; `in_flight_ideal` counts the slots a run can fill instead
(the agents of the episodes running at once, which ask together). The critical-path bound is what a synchronous step
allows: a step ends when its slowest agent has decided, an agent's calls within one decision are made one after
another (each waits for the previous answer), so an episode lasts at least the sum over its steps of the longest
chain of calls of any agent; and a suite run with `concurrency` episodes at once lasts at least its longest
episode and at least the episodes' total divided among the episodes that can run together. No scheduler that keeps
the step's semantics does better.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class EpisodeCalls:
    """One episode's requests to the server: how many, and the longest chain of them step by step."""

    calls: int
    critical_path: int  # requests in a row that no scheduler could overlap: the sum over steps of the longest chain
    chains: tuple[int, ...]  # per step, the longest chain of requests of any agent


def episode_calls(events: Iterable[Mapping[str, Any]]) -> EpisodeCalls:
    """Count an episode's requests from its trace: each `llm_call` the response cache did not answer is one request,
    made by the event's agent for the step that the next `env_step` closes. A trace writes a step's decisions
    before its `env_step`, in agent order, also when the agents decided concurrently."""
    chains: list[int] = []
    per_agent: dict[str, int] = {}
    calls = 0
    for event in events:
        kind = event.get("type")
        if kind == "llm_call" and not event.get("cache_hit"):
            agent = str(event.get("agent") or "")
            per_agent[agent] = per_agent.get(agent, 0) + 1
            calls += 1
        elif kind == "env_step":
            chains.append(max(per_agent.values(), default=0))
            per_agent = {}
    if per_agent:  # requests after the last step (none in a finished episode): their own chain
        chains.append(max(per_agent.values()))
    return EpisodeCalls(calls=calls, critical_path=sum(chains), chains=tuple(chains))


def issue_ideal(calls: int, latency_s: float, concurrency: int) -> float:
    """Issue 37's ideal: every request slot busy all the time, `concurrency` slots."""
    return calls * latency_s / concurrency


def in_flight_slots(concurrency: int, episodes: int, team_size: int) -> int:
    """The most requests a run can have in flight: every agent of every episode running at once asking together."""
    return min(concurrency, episodes) * team_size


def in_flight_ideal(calls: int, latency_s: float, concurrency: int, episodes: int, team_size: int) -> float:
    """Issue 37's ideal over the slots the run can fill (`in_flight_slots`) rather than over `concurrency`."""
    return issue_ideal(calls, latency_s, in_flight_slots(concurrency, episodes, team_size))


def critical_path_bound(paths: Iterable[int], latency_s: float, concurrency: int) -> float:
    """The least wall time of a suite whose episodes have these critical paths (in requests) when `concurrency`
    episodes may run at once: no shorter than its longest episode, nor than the total spread over the slots."""
    lengths = list(paths)
    if not lengths:
        return 0.0
    slots = min(concurrency, len(lengths))
    return max(max(lengths), sum(lengths) / slots) * latency_s
