"""Which response-cache entry each call read or wrote, so an unusable reply can be evicted.

The cache itself is LangChain's (the chat model's `cache`, or the global one): it answers a call it has seen
before. A retry after an unusable reply must ask the model, not read the same reply back, so the node discards
that reply and this layer evicts its entry. Only a cache that can forget one entry (`SQLiteResponseCache`) is used.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel

from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper


def evicting_cache(chat_model: BaseChatModel) -> Any:
    """The chat model's response cache when it can forget one reply (coopgraph's SQLite cache), else None."""
    cache = chat_model.cache
    if cache is None:
        from langchain_core.globals import get_llm_cache

        cache = get_llm_cache()
    return cache if hasattr(cache, "evict") and hasattr(cache, "take_last_key") else None


class ResponseCacheKeys(Wrapper):
    """Notes the cache key of each reply (`Completion.cache_key`) and evicts it on `discard`."""

    def __init__(self, inner: ChatLM, chat_model: BaseChatModel) -> None:
        super().__init__(inner)
        self.chat_model = chat_model

    def complete(self, request: ChatRequest) -> Completion:
        cache = evicting_cache(self.chat_model)
        if cache is None:
            return self.inner.complete(request)
        cache.take_last_key()  # forget a key left by an earlier call on this thread
        completion = self.inner.complete(request)
        return replace(completion, cache_key=cache.take_last_key())

    def discard(self, completion: Completion) -> bool:
        cache = evicting_cache(self.chat_model)
        if cache is None or completion.cache_key is None:
            return self.inner.discard(completion)
        cache.evict(completion.cache_key)
        return True
