"""Giving up on a dead server: after `max_failures` consecutive failed calls every later call fails at once.

Nodes then take their fallback without waiting, and an episode against a dead server ends in bounded time.
"""

from __future__ import annotations

from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper


class ModelUnavailable(RuntimeError):
    """The LM gave up on its server for this run after too many consecutive failed calls."""


class CallLimit(Wrapper):
    """Counts consecutive failed calls and, from `max_failures` of them on (None: never), refuses every call."""

    def __init__(self, inner: ChatLM, max_failures: int | None) -> None:
        super().__init__(inner)
        self.max_failures = max_failures
        self.failures = 0  # consecutive failed calls

    @property
    def gave_up(self) -> bool:
        return self.max_failures is not None and self.failures >= self.max_failures

    def complete(self, request: ChatRequest) -> Completion:
        if self.gave_up:
            raise ModelUnavailable(f"gave up on the model server after {self.failures} consecutive failed calls")
        try:
            completion = self.inner.complete(request)
        except Exception:
            self.failures += 1
            raise
        self.failures = 0
        return completion

    def stop_reason(self, decision_started: float) -> str | None:
        if self.gave_up:
            return "no more attempts: the LM gave up on its server"
        return self.inner.stop_reason(decision_started)
