"""The call limit alone: consecutive failures, giving up, and a success that resets the count."""

from __future__ import annotations

import pytest

from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.layers.call_limit import CallLimit, ModelUnavailable
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.testing import ScriptedChatModel

ASK = ChatRequest([{"role": "user", "content": "x"}])


def _limit(script: list[str | Exception], max_failures: int | None) -> tuple[ScriptedChatModel, CallLimit]:
    chat = ScriptedChatModel(script=script)
    return chat, CallLimit(ChatModelTransport(chat, "fake"), max_failures)


def test_after_max_failures_calls_are_refused_without_a_request() -> None:
    chat, limit = _limit([TimeoutError("slow"), TimeoutError("slow"), "late"], 2)
    for _ in range(2):
        with pytest.raises(TimeoutError):
            limit.complete(ASK)
    assert limit.gave_up and limit.failures == 2
    with pytest.raises(ModelUnavailable, match="after 2 consecutive failed calls"):
        limit.complete(ASK)
    assert len(chat.calls) == 2 and limit.failures == 2  # a refusal is not a new failure
    assert limit.stop_reason(0.0) == "no more attempts: the LM gave up on its server"


def test_a_success_resets_the_count() -> None:
    _, limit = _limit([TimeoutError("slow"), "ok", TimeoutError("slow")], 2)
    with pytest.raises(TimeoutError):
        limit.complete(ASK)
    assert limit.complete(ASK).text == "ok" and limit.failures == 0
    with pytest.raises(TimeoutError):
        limit.complete(ASK)
    assert limit.failures == 1 and not limit.gave_up and limit.stop_reason(0.0) is None


def test_without_a_limit_it_never_gives_up() -> None:
    _, limit = _limit([TimeoutError("slow")], None)
    for _ in range(5):
        with pytest.raises(TimeoutError):
            limit.complete(ASK)
    assert limit.failures == 5 and not limit.gave_up
