"""The circuit as a layer: each request asks its server's `CircuitBreaker` first and reports how it ended.

It sits below the retries and the lazy grammar, so it sees every request on its own: a retry against an open
circuit fails at once, and a half-open circuit lets exactly one request through as its probe.
"""

from __future__ import annotations

from coopgraph.llm.circuit import CircuitBreaker
from coopgraph.llm.faults import fault_kind
from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper


class Circuit(Wrapper):
    """Sends a request only when `breaker` admits it; tells the breaker whether the server answered."""

    def __init__(self, inner: ChatLM, breaker: CircuitBreaker) -> None:
        super().__init__(inner)
        self.breaker = breaker

    def complete(self, request: ChatRequest) -> Completion:
        self.breaker.admit()
        try:
            completion = self.inner.complete(request)
        except Exception as exc:
            self.breaker.failed(fault_kind(exc))
            raise
        except BaseException:  # interrupted: nothing learned about the server
            self.breaker.unanswered()
            raise
        if completion.cache_hit:
            self.breaker.unanswered()
        else:
            self.breaker.answered()
        return completion

    def stop_reason(self, decision_started: float) -> str | None:
        return self.breaker.stop_reason() or self.inner.stop_reason(decision_started)
