"""The retry layer alone, with a sleep that only notes its waits: backoff with jitter, Retry-After on a 429, and
the limits (count, longest wait, the decision's deadline, an open circuit, errors a retry cannot fix)."""

from __future__ import annotations

import time
import warnings

import pytest

from coopgraph.llm.announce import Announcer
from coopgraph.llm.circuit import CircuitBreaker, ModelUnavailable
from coopgraph.llm.interface import ChatLM, ChatRequest
from coopgraph.llm.layers.circuit import Circuit
from coopgraph.llm.layers.deadline import Deadline
from coopgraph.llm.layers.retry import Retry
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.testing import ScriptedChatModel
from tests.llm.faults_made import dropped, status_error, timed_out

ASK = ChatRequest([{"role": "user", "content": "x"}])
SERVER = "http://127.0.0.1:8000/v1"


def _retry(inner: ChatLM, waits: list[float], *, max_retries: int = 3, max_wait_s: float = 20.0) -> Retry:
    return Retry(inner, Announcer(SERVER), max_retries=max_retries, first_wait_s=0.5, max_wait_s=max_wait_s,
                 sleep=waits.append)


def _over(script: list[str | Exception]) -> tuple[ScriptedChatModel, ChatLM]:
    chat = ScriptedChatModel(script=script)
    return chat, ChatModelTransport(chat, "fake")


def test_transient_faults_are_retried_in_a_doubling_window_with_jitter() -> None:
    chat, inner = _over([status_error(500), dropped(), ValueError("not JSON"), "fine"])
    waits: list[float] = []
    assert _retry(inner, waits).complete(ASK).text == "fine"
    assert len(chat.calls) == 4 and len(waits) == 3
    assert all(0 <= wait <= 0.5 * 2**i for i, wait in enumerate(waits)), waits


def test_a_429_waits_what_its_retry_after_asks_and_says_so() -> None:
    chat, inner = _over([status_error(429, {"retry-after": "2"}), "fine"])
    waits: list[float] = []
    with pytest.warns(UserWarning) as said:
        assert _retry(inner, waits).complete(ASK).text == "fine"
    assert waits == [2.0]
    assert [str(w.message) for w in said] == [
        f"model server {SERVER} is rate limiting the run (429); retrying in 2.0 s as its Retry-After asks"]


def test_a_429_asking_for_longer_than_the_longest_wait_fails_at_once() -> None:
    chat, inner = _over([status_error(429, {"retry-after": "3600"}), "fine"])
    waits: list[float] = []
    long_wait = "asks to wait 3600 s \\(429 Retry-After\\), longer than retry_max_wait_s"
    with pytest.warns(UserWarning, match=long_wait), pytest.raises(Exception, match="429"):
        _retry(inner, waits).complete(ASK)
    assert waits == [] and len(chat.calls) == 1


def test_rate_limit_notices_come_at_most_once_in_a_while() -> None:
    chat, inner = _over([status_error(429, {"retry-after": "1"}), status_error(429, {"retry-after": "1"}), "ok"])
    retry = _retry(inner, [])
    with pytest.warns(UserWarning) as said:
        retry.complete(ASK)
        chat.script = [status_error(429, {"retry-after": "1"}), "ok"]
        chat.calls.clear()
        retry.announcer.clock = lambda: time.monotonic() + 60  # a minute later
        retry.complete(ASK)
    assert len(said) == 2 and str(said[1].message).endswith("(1 more like it since the last notice)")


def test_retries_stop_after_max_retries_with_the_last_error() -> None:
    chat, inner = _over([status_error(500)])
    waits: list[float] = []
    with pytest.raises(Exception, match="500"):
        _retry(inner, waits, max_retries=2).complete(ASK)
    assert len(chat.calls) == 3 and len(waits) == 2


@pytest.mark.parametrize("error", [status_error(400), status_error(401), KeyError("bug")])
def test_what_a_retry_cannot_fix_fails_at_once(error: Exception) -> None:
    chat, inner = _over([error, "fine"])
    with pytest.raises(type(error)):
        _retry(inner, []).complete(ASK)
    assert len(chat.calls) == 1


def test_no_retry_waits_past_the_decisions_deadline() -> None:
    chat, inner = _over([status_error(429, {"retry-after": "5"}), "fine"])
    retry = _retry(Deadline(inner, 10.0), [])
    late = ChatRequest(ASK.messages, decision_started=time.monotonic() - 6)  # 4 s left: a 5 s wait would pass it
    with pytest.raises(Exception, match="429"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        retry.complete(late)
    assert len(chat.calls) == 1
    chat.script = [status_error(429, {"retry-after": "5"}), "fine"]
    chat.calls.clear()
    early = ChatRequest(ASK.messages, decision_started=time.monotonic())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert retry.complete(early).text == "fine"


def test_retries_stop_when_the_servers_circuit_opens() -> None:
    chat, inner = _over([timed_out(), timed_out(), "late"])
    breaker = CircuitBreaker(Announcer(SERVER), failures_to_open=2)
    retry = _retry(Circuit(inner, breaker), [], max_retries=5)
    with pytest.raises(Exception, match="timed out"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        retry.complete(ASK)
    assert len(chat.calls) == 2 and breaker.state == "open"
    with pytest.raises(ModelUnavailable):
        retry.complete(ASK)  # refused, and a refusal is not retried
    assert len(chat.calls) == 2


def test_without_retries_a_call_is_sent_once() -> None:
    chat, inner = _over([status_error(500), "fine"])
    with pytest.raises(Exception, match="500"):
        _retry(inner, [], max_retries=0).complete(ASK)
    assert len(chat.calls) == 1
