"""Tracing alone: the fields of `llm_call` and `llm_error` events."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.layers.tracing import Tracing
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.testing import ScriptedChatModel

MESSAGES = [{"role": "user", "content": "pick"}]


class Events:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def event(self, kind: str, **fields: Any) -> None:
        self.events.append({"kind": kind, **fields})


def _traced(script: list[str | Exception]) -> tuple[Tracing, Events]:
    events = Events()
    return Tracing(ChatModelTransport(ScriptedChatModel(script=script), "vllm"), events, model="m",
                   backend="vllm"), events


def test_a_call_is_traced_with_its_prompt_reply_and_counts() -> None:
    layer, events = _traced(["Answer: B"])
    layer.complete(ChatRequest(MESSAGES, constraint=ChoiceConstraint(("a", "b"), reasoning_chars=0),
                               trace={"node": "choose", "attempt": 2}))
    (event,) = events.events
    assert list(event) == ["kind", "node", "attempt", "model", "backend", "prompt", "response", "prompt_tokens",
                           "completion_tokens", "latency_s", "cache_hit", "constrained", "grammar"]
    assert (event["kind"], event["node"], event["attempt"], event["response"]) == ("llm_call", "choose", 2, "Answer: B")
    assert (event["prompt"], event["constrained"], event["grammar"]) == (MESSAGES, True, "applied")


def test_a_failure_is_traced_and_raised() -> None:
    layer, events = _traced([TimeoutError("slow")])
    with pytest.raises(TimeoutError):
        layer.complete(ChatRequest(MESSAGES, trace={"node": "choose"}))
    assert events.events == [{"kind": "llm_error", "node": "choose", "prompt": MESSAGES, "error": "TimeoutError: slow"}]


def test_without_a_tracer_nothing_is_written() -> None:
    layer = Tracing(ChatModelTransport(ScriptedChatModel(script=["x"]), "fake"), None, model="m", backend="fake")
    assert layer.complete(ChatRequest(MESSAGES)).text == "x"


def test_a_question_left_without_a_reply_is_traced_as_a_fallback() -> None:
    layer, events = _traced(["x"])
    layer.fell_back({"node": "choose"}, ["TimeoutError: slow", "no more attempts: circuit open"])
    assert events.events == [{"kind": "model_fallback", "node": "choose",
                              "errors": ["TimeoutError: slow", "no more attempts: circuit open"]}]
