"""The bottom of the stack: one request to a LangChain chat model, in the words its backend understands.

LangChain gives one transport for every backend (and fakes in tests), its callbacks and its response cache (which
keys each call by prompt and request parameters, so these must not change between releases). What the request
says, and how, is the backend's (`ChatBackend.request`: the token cap in its words, its constraint, the seed).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from coopgraph.llm.cache import CACHE_HIT
from coopgraph.llm.interface import ChatRequest, Completion, Messages
from coopgraph.llm.text import strip_control

if TYPE_CHECKING:
    from coopgraph.llm.backends.base import ChatBackend

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


def to_langchain(messages: Messages) -> list[BaseMessage]:
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


class ChatModelTransport:
    """A `ChatLM` that sends each request to `chat_model` and reports its reply, usage and cache flag.

    With `seed` (the agent's model seed), every request carries it: as a call parameter, or, when it is the seed the
    chat model sends itself (ChatOpenAI built with the setting's seed), by the chat model alone; the request is then
    the one sent before model seeds existed, under the same response-cache key, so replies stored then still
    answer."""

    def __init__(self, chat_model: BaseChatModel, backend: str | ChatBackend, seed: int | None = None) -> None:
        from coopgraph.llm.backends import backend_named

        self.chat_model = chat_model
        self.backend = backend_named(backend) if isinstance(backend, str) else backend
        self.seed = seed

    def complete(self, request: ChatRequest) -> Completion:
        start = time.perf_counter()
        own = getattr(self.chat_model, "seed", None)  # the seed the chat model sends with every request itself
        seed = None if self.seed == own else self.seed
        chat_model, kwargs = self.backend.request(self.chat_model, request, seed)
        reply = chat_model.invoke(to_langchain(request.messages), **kwargs)
        latency = time.perf_counter() - start
        raw = reply.content if isinstance(reply.content, str) else str(reply.content)
        usage: Any = getattr(reply, "usage_metadata", None) or {}
        return Completion(
            text=strip_control(raw),
            prompt_tokens=int(usage.get("input_tokens", 0)),
            completion_tokens=int(usage.get("output_tokens", 0)),
            latency_s=latency,
            cache_hit=bool(reply.response_metadata.get(CACHE_HIT)),
            raw_text=raw,
            finished=self.backend.finished(reply),
            grammar="none" if request.constraint is None else "applied",
        )

    def discard(self, completion: Completion) -> bool:
        return False  # the transport keeps no reply; the response cache layer above it does

    def stop_reason(self, decision_started: float) -> str | None:
        return None

    def fell_back(self, trace: Mapping[str, Any], errors: Sequence[str]) -> None:
        return None  # counted and traced by the layers above
