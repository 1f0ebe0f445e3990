"""Usage accounting alone: answered, failed, refused and discarded calls per node, and questions that fell back."""

from __future__ import annotations

from dataclasses import replace

import pytest

from coopgraph.llm.circuit import ModelUnavailable
from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.llm.layers.usage import UsageCounter
from coopgraph.testing import ScriptedChatModel


def _ask(node: str) -> ChatRequest:
    return ChatRequest([{"role": "user", "content": "pick one"}], trace={"node": node, "attempt": 1})


def test_answered_calls_add_tokens_and_count_per_node() -> None:
    counter = UsageCounter(ChatModelTransport(ScriptedChatModel(script=["Answer: A"]), "fake"))
    for node in ("choose", "choose", "describe"):
        counter.complete(_ask(node))
    u = counter.usage
    assert (u.calls, u.prompt_tokens, u.completion_tokens, u.errors) == (3, 6, 6, 0)
    assert u.per_node == {"choose": 2, "describe": 1}


def test_failures_and_refusals_are_errors_and_only_refusals_are_refused() -> None:
    script: list[str | Exception] = [TimeoutError("slow"), ModelUnavailable("circuit open")]
    counter = UsageCounter(ChatModelTransport(ScriptedChatModel(script=script), "fake"))
    for expected in (TimeoutError, ModelUnavailable):
        with pytest.raises(expected):
            counter.complete(_ask("choose"))
    assert (counter.usage.errors, counter.usage.refused, counter.usage.calls) == (2, 1, 0)


class _Marks(Wrapper):
    """Marks every reply as served by the cache with its grammar unneeded, and evicts what it is asked to."""

    def complete(self, request: ChatRequest) -> Completion:
        return replace(self.inner.complete(request), cache_hit=True, grammar="unneeded")

    def discard(self, completion: Completion) -> bool:
        return True


def test_cache_hits_skipped_grammars_and_discards_are_counted() -> None:
    inner: ChatLM = _Marks(ChatModelTransport(ScriptedChatModel(script=["Answer: A"]), "fake"))
    counter = UsageCounter(inner)
    done = counter.complete(_ask("choose"))
    assert counter.discard(done) is True
    u = counter.usage
    assert (u.cache_hits, u.grammar_skipped, u.discarded) == (1, 1, 1)
    plain = UsageCounter(ChatModelTransport(ScriptedChatModel(script=["x"]), "fake"))
    assert plain.discard(plain.complete(_ask("n"))) is False and plain.usage.discarded == 0


def test_questions_left_without_a_reply_are_counted_as_fallbacks() -> None:
    counter = UsageCounter(ChatModelTransport(ScriptedChatModel(script=["x"]), "fake"))
    counter.fell_back({"node": "choose"}, ["TimeoutError: slow"])
    counter.fell_back({"node": "speak"}, [])
    assert (counter.usage.fallbacks, counter.usage.calls, counter.usage.errors) == (2, 0, 0)
