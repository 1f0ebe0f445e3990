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
    """Retries of one request (with backoff), the circuit's thresholds, and whether the server's trouble is said on
    the terminal. The default, for fakes, retries nothing, never opens the circuit and says nothing."""

    max_retries: int = 0
    retry_wait_s: float = 0.5
    retry_max_wait_s: float = 20.0
    max_failures: int | None = None
    cooldown_s: float = 30.0
    max_cooldown_s: float = 600.0
    timeout_s: float | None = None  # each request's time-out, named when the server first misses it
    announces: bool = False

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> Resilience:
        return cls(max_retries=settings.max_retries, retry_wait_s=settings.retry_wait_s,
                   retry_max_wait_s=settings.retry_max_wait_s, max_failures=settings.max_failures,
                   cooldown_s=settings.circuit_cooldown_s, max_cooldown_s=settings.circuit_max_cooldown_s,
                   timeout_s=settings.timeout_s, announces=True)


class ServerWatch:
    """One model server as the run sees it: what has been said about it, and its circuit."""

    def __init__(self, server: str, resilience: Resilience, *, clock: Callable[[], float] = time.monotonic) -> None:
        """`server`: the base URL the chat model asks, or what names a chat model that has none."""
        self.announcer = Announcer(public_url(server), clock=clock, quiet=not resilience.announces)
        self.breaker = CircuitBreaker(self.announcer, failures_to_open=resilience.max_failures,
                                      cooldown_s=resilience.cooldown_s, max_cooldown_s=resilience.max_cooldown_s,
                                      timeout_s=resilience.timeout_s, clock=clock)
