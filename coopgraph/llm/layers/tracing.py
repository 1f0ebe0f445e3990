"""Tracing: every call becomes an `llm_call` event (prompt, reply, tokens, latency, cache hit, grammar use), every
failure an `llm_error` event and every question left without a reply a `model_fallback` event, in the agent's
trace."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper


class Tracing(Wrapper):
    """Writes each call to `tracer` (anything with `event(kind, **fields)`; None writes nothing)."""

    def __init__(self, inner: ChatLM, tracer: Any, *, model: str, backend: str) -> None:
        super().__init__(inner)
        self.tracer = tracer
        self.model = model
        self.backend = backend

    def complete(self, request: ChatRequest) -> Completion:
        if self.tracer is None:
            return self.inner.complete(request)
        try:
            completion = self.inner.complete(request)
        except Exception as exc:
            self.tracer.event("llm_error", **request.trace, prompt=request.messages,
                              error=f"{type(exc).__name__}: {exc}")
            raise
        extra = {"free_response": completion.free_response} if completion.free_response is not None else {}
        self.tracer.event(
            "llm_call", **request.trace, model=self.model, backend=self.backend, prompt=request.messages,
            response=completion.text, prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens, latency_s=round(completion.latency_s, 4),
            cache_hit=completion.cache_hit, constrained=request.constraint is not None, grammar=completion.grammar,
            **extra,
        )
        return completion

    def fell_back(self, trace: Mapping[str, Any], errors: Sequence[str]) -> None:
        if self.tracer is not None:
            self.tracer.event("model_fallback", **trace, errors=list(errors))
        self.inner.fell_back(trace, errors)
