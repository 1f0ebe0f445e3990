"""How an LM rides out a misbehaving server: the knobs (`Resilience`, from `LLMSettings`) and the live state of
one server (`ServerWatch`: its circuit and its announcements), which every agent's LM asking that server shares."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coopgraph.llm.announce import Announcer, public_url
from coopgraph.llm.circuit import CircuitBreaker

if TYPE_CHECKING:
    from coopgraph.llm.settings import LLMSettings


@dataclass(frozen=True)
class Resilience:
    """Retries of one request (with backoff) and the circuit's thresholds. The default, for fakes, retries
    nothing and never opens the circuit."""

    max_retries: int = 0
    retry_wait_s: float = 0.5
    retry_max_wait_s: float = 20.0
    max_failures: int | None = None
    cooldown_s: float = 30.0
    max_cooldown_s: float = 600.0
    timeout_s: float | None = None  # each request's time-out, named when the server first misses it

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> Resilience:
        return cls(max_retries=settings.max_retries, retry_wait_s=settings.retry_wait_s,
                   retry_max_wait_s=settings.retry_max_wait_s, max_failures=settings.max_failures,
                   cooldown_s=settings.circuit_cooldown_s, max_cooldown_s=settings.circuit_max_cooldown_s,
                   timeout_s=settings.timeout_s)


class ServerWatch:
    """One model server as the run sees it: what has been said about it, and its circuit."""

    def __init__(self, base_url: str | None, resilience: Resilience, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.announcer = Announcer(public_url(base_url), clock=clock)
        self.breaker = CircuitBreaker(self.announcer, failures_to_open=resilience.max_failures,
                                      cooldown_s=resilience.cooldown_s, max_cooldown_s=resilience.max_cooldown_s,
                                      timeout_s=resilience.timeout_s, clock=clock)
