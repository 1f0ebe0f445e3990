"""Asking again after a bad minute: each call is retried on a transient fault, with exponential backoff and jitter.

A 429 waits what its `Retry-After` asks (announced, with the wait); any other fault (a time-out, a dropped
connection, a 5xx, an unreadable body) waits a random time in a window that doubles per retry ("full jitter"), so
agents that failed together do not come back together. Retries stop after `max_retries`, when the wait would be
longer than `retry_max_wait_s` (a server asking for an hour is not waited for), and when the layers below say the
decision should make no new attempt once the wait is over: its deadline would have passed, or the server's
circuit is open. A refused call (`ModelUnavailable`) and a permanent error (a 400, a wrong key) are not retried.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tenacity import RetryCallState, Retrying, retry_if_exception, wait_random_exponential

from coopgraph.llm.announce import Announcer
from coopgraph.llm.faults import fault_kind, retry_after_s
from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper


def _retried(exc: BaseException) -> bool:
    return fault_kind(exc) is not None


class Retry(Wrapper):
    """Retries `inner.complete` on transient faults; `sleep` is injectable so tests wait for nothing."""

    def __init__(
        self,
        inner: ChatLM,
        announcer: Announcer,
        *,
        max_retries: int,
        first_wait_s: float = 0.5,
        max_wait_s: float = 20.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(inner)
        self.announcer = announcer
        self.max_retries = max_retries
        self.max_wait_s = max_wait_s
        self.backoff = wait_random_exponential(multiplier=first_wait_s, max=max_wait_s)
        self.sleep = sleep

    def complete(self, request: ChatRequest) -> Completion:
        if self.max_retries == 0:
            return self.inner.complete(request)
        started = request.decision_started if request.decision_started is not None else time.monotonic()
        retrying = Retrying(
            stop=lambda state: self._stops(state, started),
            wait=self._wait,
            retry=retry_if_exception(_retried),
            before_sleep=self._announce_wait,
            sleep=self.sleep,
            reraise=True,
        )
        return retrying(self.inner.complete, request)

    def _wait(self, state: RetryCallState) -> float:
        """What a 429 asks for, else a random wait in the doubling window."""
        exc = _error(state)
        if exc is not None and fault_kind(exc) == "rate_limited":
            asked = retry_after_s(exc)
            if asked is not None:
                return asked
        return float(self.backoff(state))

    def _stops(self, state: RetryCallState, started: float) -> bool:
        """No retry after `max_retries`, when the wait is too long, or when the decision could make no new attempt
        after it."""
        if state.attempt_number > self.max_retries:
            return True
        wait = state.upcoming_sleep
        if wait > self.max_wait_s:
            self.announcer.seldom("long-wait", f"model server {self.announcer.server} asks to wait {wait:.0f} s "
                                  f"(429 Retry-After), longer than retry_max_wait_s ({self.max_wait_s:g} s): the call "
                                  "fails now and its node may take its fallback")
            return True
        # asked as of the end of the wait: would a decision begun at `started` still make an attempt then?
        return self.inner.stop_reason(started - wait) is not None

    def _announce_wait(self, state: RetryCallState) -> None:
        exc = _error(state)
        if exc is None or fault_kind(exc) != "rate_limited":
            return
        asked = " as its Retry-After asks" if retry_after_s(exc) is not None else ""
        self.announcer.seldom("rate-limited", f"model server {self.announcer.server} is rate limiting the run (429); "
                              f"retrying in {state.upcoming_sleep:.1f} s{asked}")


def _error(state: RetryCallState) -> BaseException | None:
    return state.outcome.exception() if state.outcome is not None and state.outcome.failed else None
