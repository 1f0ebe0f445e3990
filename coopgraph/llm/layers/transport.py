"""The bottom of the stack: one request to a LangChain chat model, in the words its backend understands.

LangChain gives one transport for the embedded server, vLLM and OpenAI (and fakes in tests), its callbacks and its
response cache (which keys each call by prompt and request parameters, so these must not change between releases).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from coopgraph.llm.cache import CACHE_HIT
from coopgraph.llm.constraints import Backend, request_kwargs
from coopgraph.llm.interface import ChatRequest, Completion, Messages
from coopgraph.llm.text import strip_control

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
#: What a caller may set per call (a spec's `llm:` block sets the first two); anything else (dspy's) is dropped.
_PER_CALL_OPTIONS = ("temperature", "top_p", "stop")


def to_langchain(messages: Messages) -> list[BaseMessage]:
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


def speaks_max_tokens(backend: Backend, base_url: str | None) -> bool:
    """Whether the server reads the older `max_tokens` field: llama.cpp and vLLM do, and so does any other
    OpenAI-compatible server (Ollama, llama.cpp's llama-server, LM Studio) behind an `openai:` setting; only
    OpenAI's own API wants `max_completion_tokens` alone."""
    if backend in ("llamacpp", "vllm"):
        return True
    return backend == "openai" and base_url is not None and "api.openai.com" not in base_url


def call_kwargs(request: ChatRequest, backend: Backend, base_url: str | None = None,
                seed: int | None = None) -> dict[str, Any]:
    """The request parameters sent with this call (part of every response-cache key); `seed` is the agent's model
    seed (`coopgraph.llm.seeds`), sent as the request's OpenAI `seed`."""
    kwargs: dict[str, Any] = {"max_tokens": request.max_tokens, **request_kwargs(request.constraint, backend)}
    if seed is not None:
        kwargs["seed"] = seed
    if speaks_max_tokens(backend, base_url):
        # ChatOpenAI renames max_tokens to max_completion_tokens, which llama.cpp's server ignores: a model that
        # never writes its stop token would then write until the context is full. Say it in their words.
        kwargs["extra_body"] = {**kwargs.get("extra_body", {}), "max_tokens": request.max_tokens}
    return {**kwargs, **{k: v for k, v in request.options.items() if k in _PER_CALL_OPTIONS}}


class ChatModelTransport:
    """A `ChatLM` that sends each request to `chat_model` and reports its reply, usage and cache flag.

    With `seed` (the agent's model seed), every request carries it: as a call parameter, or, when it is the seed the
    chat model sends itself (ChatOpenAI built with the setting's seed), by the chat model alone; the request is then
    the one sent before model seeds existed, under the same response-cache key, so replies stored then still
    answer."""

    def __init__(self, chat_model: BaseChatModel, backend: Backend, seed: int | None = None) -> None:
        self.chat_model = chat_model
        self.backend = backend
        self.seed = seed

    def complete(self, request: ChatRequest) -> Completion:
        start = time.perf_counter()
        base_url = getattr(self.chat_model, "openai_api_base", None)  # ChatOpenAI's server; None for fakes
        own = getattr(self.chat_model, "seed", None)  # the seed ChatOpenAI sends with every request
        seed = None if self.seed == own else self.seed
        reply = self.chat_model.invoke(to_langchain(request.messages),
                                       **call_kwargs(request, self.backend, base_url, seed))
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
            finished=reply.response_metadata.get("finish_reason") != "length",
            grammar="none" if request.constraint is None else "applied",
        )

    def discard(self, completion: Completion) -> bool:
        return False  # the transport keeps no reply; the response cache layer above it does

    def stop_reason(self, decision_started: float) -> str | None:
        return None

    def fell_back(self, trace: Mapping[str, Any], errors: Sequence[str]) -> None:
        return None  # counted and traced by the layers above
