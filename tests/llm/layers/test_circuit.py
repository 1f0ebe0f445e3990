"""The circuit layer alone: every request asks the breaker first and reports how it ended."""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import replace

import pytest

from coopgraph.llm.announce import Announcer
from coopgraph.llm.circuit import CircuitBreaker, ModelUnavailable
from coopgraph.llm.interface import ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper
from coopgraph.llm.layers.circuit import Circuit
from coopgraph.llm.layers.deadline import Deadline
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.testing import ScriptedChatModel
from tests.llm.faults_made import refused, status_error

ASK = ChatRequest([{"role": "user", "content": "x"}])


class _FromCache(Wrapper):
    def complete(self, request: ChatRequest) -> Completion:
        return replace(self.inner.complete(request), cache_hit=True)


def _circuit(script: list[str | Exception], *, cached: bool = False) -> tuple[ScriptedChatModel, Circuit]:
    chat = ScriptedChatModel(script=script)
    inner = ChatModelTransport(chat, "fake")
    breaker = CircuitBreaker(Announcer("http://127.0.0.1:9/v1"), failures_to_open=2, cooldown_s=30.0)
    return chat, Circuit(_FromCache(inner) if cached else inner, breaker)


def test_refused_connections_open_it_and_later_calls_are_not_sent() -> None:
    chat, circuit = _circuit([refused(), refused(), "late"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            with pytest.raises(Exception, match="Connection error"):
                circuit.complete(ASK)
    with pytest.raises(ModelUnavailable):
        circuit.complete(ASK)
    assert len(chat.calls) == 2
    assert circuit.stop_reason(0.0) is not None and "circuit open" in str(circuit.stop_reason(0.0))


def test_an_answer_between_failures_keeps_it_closed() -> None:
    chat, circuit = _circuit([refused(), "ok", refused(), status_error(500), refused()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(5):
            with contextlib.suppress(Exception):  # only the circuit's state matters here
                circuit.complete(ASK)
    assert circuit.breaker.state == "closed" and circuit.breaker.consecutive == 1 and len(chat.calls) == 5


def test_a_cache_hit_neither_opens_nor_closes_it() -> None:
    _, circuit = _circuit(["cached"], cached=True)
    circuit.complete(ASK)
    assert circuit.breaker.consecutive == 0 and circuit.breaker.state == "closed"


def test_its_stop_reason_names_the_open_circuit_else_asks_below() -> None:
    chat = ScriptedChatModel(script=["x"])
    breaker = CircuitBreaker(Announcer("s"), failures_to_open=1)
    circuit = Circuit(Deadline(ChatModelTransport(chat, "fake"), 1.0), breaker)
    assert circuit.stop_reason(0.0) == "no more attempts: the decision's deadline (1 s) has passed"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        breaker.failed("timeout")
    assert str(circuit.stop_reason(0.0)).startswith("no more attempts: model server s is not answering")
