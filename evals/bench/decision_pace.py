"""How long the model took per decision, from a run's trace events, counting only what it computed.

A decision is a `plan` event; the `llm_call` events an agent writes after its previous plan belong to its next one
(a CoELA message, a CaPo discussion turn and the choice itself are all that decision's cost). A call the response
cache answered (`cache_hit`) took the model no time and is left out, and so is a decision none of whose calls the
model computed (all answered by the cache, or taken without a call: a single option left). What remains is the
model's pace: the summed `latency_s` of its computed calls (the transport's time, not waiting for a turn on the
machine) over the decisions that had one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DecisionPace:
    """`computed` of `decisions` had at least one call the model computed, taking `seconds` in all; `cached` of the
    rest were answered by the response cache alone."""

    decisions: int = 0
    computed: int = 0
    cached: int = 0
    seconds: float = 0.0

    @property
    def seconds_per_decision(self) -> float | None:
        return self.seconds / self.computed if self.computed else None

    def __add__(self, other: DecisionPace) -> DecisionPace:
        return DecisionPace(self.decisions + other.decisions, self.computed + other.computed,
                            self.cached + other.cached, self.seconds + other.seconds)


@dataclass
class _Open:
    """The calls an agent has made since its last decision."""

    seconds: float = 0.0
    computed: bool = False
    cached: bool = False


class PaceCounter:
    """Fed a run's events in order (a trace listener, or a trace read back), it attributes each call to its agent's
    next decision; `hear` gives the model seconds of each decision that closes with a computed call."""

    def __init__(self) -> None:
        self.open: dict[Any, _Open] = {}
        self.pace = DecisionPace()

    def hear(self, event: dict[str, Any]) -> float | None:
        """Take one event; the model seconds of the decision it closes when the model computed any of it, else
        None (not a decision, or one the model did not compute)."""
        kind, agent = event.get("type"), event.get("agent")
        if kind == "llm_call":
            calls = self.open.setdefault(agent, _Open())
            if event.get("cache_hit"):
                calls.cached = True
            else:
                calls.computed = True
                calls.seconds += float(event.get("latency_s") or 0.0)
            return None
        if kind != "plan":
            return None
        calls = self.open.pop(agent, _Open())
        self.pace += DecisionPace(1, int(calls.computed), int(calls.cached and not calls.computed),
                                  calls.seconds if calls.computed else 0.0)
        return calls.seconds if calls.computed else None

    def under_way(self, agent: Any) -> float:
        """The model seconds `agent`'s decision under way has computed so far."""
        calls = self.open.get(agent)
        return calls.seconds if calls is not None else 0.0


def decision_pace(events: Iterable[dict[str, Any]]) -> DecisionPace:
    """The pace of one run's events (a fork's copied prefix is not this run's and is skipped)."""
    counter = PaceCounter()
    for event in events:
        if not event.get("forked_prefix"):
            counter.hear(event)
    return counter.pace
