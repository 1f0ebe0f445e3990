"""The response-cache layer alone: each reply knows its entry, and a discarded one is asked again."""

from __future__ import annotations

from pathlib import Path

from coopgraph.llm.cache import SQLiteResponseCache
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.layers.response_cache import ResponseCacheKeys
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.testing import ScriptedChatModel

PICK = ChatRequest([{"role": "user", "content": "pick"}], max_tokens=4)


def _layer(chat: ScriptedChatModel) -> ResponseCacheKeys:
    return ResponseCacheKeys(ChatModelTransport(chat, "fake"), chat)


def test_a_repeated_call_reads_the_same_entry(tmp_path: Path) -> None:
    chat = ScriptedChatModel(script=["one", "two"], cache=SQLiteResponseCache(tmp_path / "r.sqlite"))
    layer = _layer(chat)
    first, again = layer.complete(PICK), layer.complete(PICK)
    assert first.cache_key is not None and again.cache_key == first.cache_key
    assert (again.text, again.cache_hit, len(chat.calls)) == ("one", True, 1)


def test_a_discarded_reply_is_asked_again(tmp_path: Path) -> None:
    chat = ScriptedChatModel(script=["unusable", "good"], cache=SQLiteResponseCache(tmp_path / "r.sqlite"))
    layer = _layer(chat)
    assert layer.discard(layer.complete(PICK)) is True
    retry = layer.complete(PICK)
    assert (retry.text, retry.cache_hit, len(chat.calls)) == ("good", False, 2)


def test_without_an_evicting_cache_nothing_is_noted_or_discarded() -> None:
    chat = ScriptedChatModel(script=["one"])
    layer = _layer(chat)
    done = layer.complete(PICK)
    assert done.cache_key is None and layer.discard(done) is False
