"""The pass-through every wrapper starts from, so each one overrides only the method its concern touches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coopgraph.llm.interface import ChatLM, ChatRequest, Completion


class Wrapper:
    """A `ChatLM` that hands every call to `inner` unchanged."""

    def __init__(self, inner: ChatLM) -> None:
        self.inner = inner

    def complete(self, request: ChatRequest) -> Completion:
        return self.inner.complete(request)

    def discard(self, completion: Completion) -> bool:
        return self.inner.discard(completion)

    def stop_reason(self, decision_started: float) -> str | None:
        return self.inner.stop_reason(decision_started)

    def fell_back(self, trace: Mapping[str, Any], errors: Sequence[str]) -> None:
        self.inner.fell_back(trace, errors)
