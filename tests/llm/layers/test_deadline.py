"""The decision deadline alone: it answers `stop_reason` and leaves calls alone."""

from __future__ import annotations

import time

from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.layers.deadline import Deadline
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.testing import ScriptedChatModel


def _deadline(seconds: float | None) -> Deadline:
    return Deadline(ChatModelTransport(ScriptedChatModel(script=["ok"]), "fake"), seconds)


def test_a_decision_past_its_deadline_starts_no_new_attempt() -> None:
    reason = _deadline(5.0).stop_reason(time.monotonic() - 6.0)
    assert reason == "no more attempts: the decision's deadline (5 s) has passed"


def test_a_decision_within_its_deadline_or_without_one_goes_on() -> None:
    assert _deadline(300.0).stop_reason(time.monotonic()) is None
    assert _deadline(None).stop_reason(time.monotonic() - 1e6) is None


def test_calls_pass_through_even_after_the_deadline() -> None:
    assert _deadline(0.001).complete(ChatRequest([{"role": "user", "content": "x"}])).text == "ok"
