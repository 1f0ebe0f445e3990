"""The circuit of one server on a fake clock: it opens on time-outs in a row, fails fast while open, probes once
after its cool-down, closes on an answer, and says each change once on the terminal."""

from __future__ import annotations

import warnings

import pytest

from coopgraph.llm.announce import Announcer, ModelServerWarning
from coopgraph.llm.circuit import CircuitBreaker, ModelUnavailable

SERVER = "http://127.0.0.1:8000/v1"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _breaker(clock: Clock, failures_to_open: int | None = 2) -> CircuitBreaker:
    return CircuitBreaker(Announcer(SERVER, clock=clock), failures_to_open=failures_to_open, cooldown_s=30.0,
                          max_cooldown_s=100.0, timeout_s=120.0, clock=clock)


def _said(action: object) -> list[str]:
    """What the action announced, in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert callable(action)
        action()
    assert all(issubclass(w.category, ModelServerWarning) for w in caught)
    return [str(w.message) for w in caught]


def test_time_outs_in_a_row_open_it_and_it_then_refuses_without_a_request() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    breaker.admit()
    first = _said(lambda: breaker.failed("timeout"))
    assert first == [f"model server {SERVER} did not answer within 120 s; the run keeps asking it with backoff, and "
                     "after 2 requests in a row without an answer stops asking for 30 s at a time (decisions take "
                     "their fallbacks) before one probe request"]
    assert breaker.state == "closed" and breaker.stop_reason() is None
    breaker.admit()
    opened = _said(lambda: breaker.failed("timeout"))
    assert opened == [f"model server {SERVER}: 2 requests in a row got no answer; circuit open: calls fail at once "
                      "for 30 s (decisions take their fallbacks), then one probe request"]
    assert breaker.state == "open"
    clock.now += 10
    with pytest.raises(ModelUnavailable, match="not answering \\(the next probe in 20 s\\)"):
        breaker.admit()
    assert breaker.refused == 1
    assert breaker.stop_reason() == (f"no more attempts: model server {SERVER} is not answering (circuit open, next "
                                     "probe in 20 s)")


def test_one_bad_reply_or_a_dropped_connection_never_opens_it() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    for kind in ("timeout", "server_error", "timeout", "dropped", "timeout", "rate_limited", "timeout", "malformed"):
        breaker.admit()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            breaker.failed(kind)  # type: ignore[arg-type]
    assert breaker.state == "closed" and breaker.consecutive == 0


def test_after_the_cool_down_one_probe_goes_and_an_answer_closes_it() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            breaker.admit()
            breaker.failed("no_server")
    clock.now += 30
    assert breaker.state == "half-open" and breaker.stop_reason() is None
    breaker.admit()  # the probe
    with pytest.raises(ModelUnavailable, match="a probe is under way"):
        breaker.admit()  # a second caller while the probe is out
    closed = _said(breaker.answered)
    assert closed == [f"model server {SERVER} answers again; circuit closed after 30 s open (1 calls failed at once "
                      "meanwhile)"]
    assert breaker.state == "closed" and breaker.consecutive == 0
    breaker.admit()


def test_a_failed_probe_opens_it_again_for_twice_as_long_up_to_the_cap() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            breaker.admit()
            breaker.failed("timeout")
    waits = []
    for _ in range(3):
        clock.now += breaker.cooldown_s
        breaker.admit()
        said = _said(lambda: breaker.failed("timeout"))
        assert said[0].startswith(f"model server {SERVER} still does not answer the probe (did not answer within 120 "
                                  "s); not asking it for")
        waits.append(breaker.cooldown_s)
        assert breaker.state == "open"
    assert waits == [60.0, 100.0, 100.0]
    clock.now += 100
    breaker.admit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        breaker.answered()
    assert breaker.cooldown_s == 30.0  # a new outage starts from the first cool-down again


def test_a_cache_hit_during_the_probe_teaches_nothing_and_frees_the_probe() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            breaker.admit()
            breaker.failed("timeout")
    clock.now += 30
    breaker.admit()
    breaker.unanswered()
    assert breaker.state == "half-open"
    breaker.admit()  # the next caller may probe


def test_the_first_time_out_is_said_once_per_server() -> None:
    clock = Clock()
    breaker = _breaker(clock, failures_to_open=None)
    said = []
    for _ in range(4):
        breaker.admit()
        said += _said(lambda: breaker.failed("timeout"))
        said += _said(breaker.answered)
    assert said == [f"model server {SERVER} did not answer within 120 s; the run keeps asking it, and a decision "
                    "without an answer takes its fallback"]
    assert breaker.state == "closed"


def test_a_missing_server_is_named_as_such() -> None:
    breaker = _breaker(Clock())
    breaker.admit()
    assert _said(lambda: breaker.failed("no_server"))[0].startswith(
        f"model server {SERVER} cannot be reached (no server listening); the run keeps asking it")
