"""The circuit of one model server: stop paying time-outs to a server that is not answering, and ask again later.

Closed, every request goes out. After `failures_to_open` requests in a row that timed out or found no server, it
opens: requests fail at once (`ModelUnavailable`) so nodes take their fallbacks without waiting. After the
cool-down one request goes out as a probe (half-open): an answer closes the circuit, another time-out opens it
again for twice as long (at most `max_cooldown_s`). A dropped connection, a 429, a 5xx or an unreadable body come
from a server that is there: they close a half-open circuit and never open one. Every agent asking the same
server shares its circuit, and each change is announced on the terminal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

from coopgraph.llm.announce import Announcer
from coopgraph.llm.faults import UNREACHABLE, FaultKind

CircuitState = Literal["closed", "open", "half-open"]


class ModelUnavailable(RuntimeError):
    """A call not sent: the circuit of its model server is open (it stopped answering a moment ago)."""


class CircuitBreaker:
    """The state above, on an injectable `clock` (time.monotonic), safe to share between threads."""

    def __init__(
        self,
        announcer: Announcer,
        *,
        failures_to_open: int | None,
        cooldown_s: float = 30.0,
        max_cooldown_s: float = 600.0,
        timeout_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.announcer = announcer
        self.failures_to_open = failures_to_open
        self.base_cooldown_s = cooldown_s
        self.max_cooldown_s = max(cooldown_s, max_cooldown_s)
        self.timeout_s = timeout_s
        self.clock = clock
        self.consecutive = 0  # requests in a row that timed out or found no server
        self.cooldown_s = cooldown_s  # the current open period: doubles after each failed probe
        self.opened_at: float | None = None
        self.refused = 0  # requests failed at once since the circuit last opened
        self._probing = False
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> CircuitState:
        if self.opened_at is None:
            return "closed"
        return "open" if self.clock() - self.opened_at < self.cooldown_s else "half-open"

    def seconds_to_probe(self) -> float:
        """How long an open circuit still refuses requests (0 when closed or ready to probe)."""
        if self.opened_at is None:
            return 0.0
        return max(0.0, self.opened_at + self.cooldown_s - self.clock())

    # ------------------------------------------------------------------ one request
    def admit(self) -> None:
        """Let a request go out, or raise `ModelUnavailable`; half-open, only one request (the probe) goes."""
        with self._lock:
            state = self.state
            if state == "closed":
                return
            if state == "half-open" and not self._probing:
                self._probing = True
                return
            self.refused += 1
            wait = self.seconds_to_probe()
        when = f"the next probe in {wait:.0f} s" if wait > 0 else "a probe is under way"
        raise ModelUnavailable(f"not sent: model server {self.announcer.server} is not answering ({when})")

    def answered(self) -> None:
        """The server replied (whatever the reply): the circuit closes."""
        with self._lock:
            self.consecutive = 0
            closed = self._close()
        if closed:
            self.announcer.say(closed)

    def unanswered(self) -> None:
        """The request ended without reaching the server's answer (a cache hit): nothing learned, probe released."""
        with self._lock:
            self._probing = False

    def failed(self, kind: FaultKind | None) -> None:
        """The request failed: a time-out or a missing server counts towards opening; any other failure came from a
        server that is there and counts as an answer."""
        if kind not in UNREACHABLE:
            self.answered()
            return
        with self._lock:
            self.consecutive += 1
            first = self.consecutive == 1 and self.opened_at is None
            probed = self._probing
            if probed:
                self._probing = False
                self.cooldown_s = min(self.cooldown_s * 2, self.max_cooldown_s)
                self.opened_at = self.clock()
            opens = (self.opened_at is None and self.failures_to_open is not None
                     and self.consecutive >= self.failures_to_open)
            if opens:
                self.opened_at = self.clock()
                self.refused = 0
        if probed:
            self.announcer.say(f"model server {self.announcer.server} still does not answer the probe ("
                               f"{_what(kind, self.timeout_s)}); not asking it for {self.cooldown_s:g} s")
        if first:
            self.announcer.once("unreachable", self._first_notice(kind))
        if opens:
            self.announcer.say(
                f"model server {self.announcer.server}: {self.consecutive} requests in a row got no answer; circuit "
                f"open: calls fail at once for {self.cooldown_s:g} s (decisions take their fallbacks), then one "
                "probe request")

    def stop_reason(self) -> str | None:
        if self.state != "open":
            return None
        return (f"no more attempts: model server {self.announcer.server} is not answering (circuit open, next probe "
                f"in {self.seconds_to_probe():.0f} s)")

    # ------------------------------------------------------------------ helpers
    def _close(self) -> str | None:
        """Close the circuit (the caller holds the lock); what to announce when it was open."""
        self._probing = False
        if self.opened_at is None:
            return None
        open_for = self.clock() - self.opened_at
        refused = self.refused
        self.opened_at, self.cooldown_s, self.refused = None, self.base_cooldown_s, 0
        return (f"model server {self.announcer.server} answers again; circuit closed after {open_for:.0f} s open "
                f"({refused} calls failed at once meanwhile)")

    def _first_notice(self, kind: FaultKind | None) -> str:
        server = self.announcer.server
        head = (f"model server {server} did not answer within {self.timeout_s:g} s"
                if kind == "timeout" and self.timeout_s is not None else f"model server {server} {_what(kind, None)}")
        if self.failures_to_open is None:
            return head + "; the run keeps asking it, and a decision without an answer takes its fallback"
        return (f"{head}; the run keeps asking it with backoff, and after {self.failures_to_open} requests in a row "
                f"without an answer stops asking for {self.base_cooldown_s:g} s at a time (decisions take their "
                "fallbacks) before one probe request")


def _what(kind: FaultKind | None, timeout_s: float | None) -> str:
    if kind == "timeout":
        return "did not answer" + (f" within {timeout_s:g} s" if timeout_s is not None else " in time")
    return "cannot be reached (no server listening)"
