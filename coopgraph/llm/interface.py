"""The one interface between nodes and a language model: ask with a `ChatRequest`, get a `Completion`.

Everything else the LLM layer does (caching, lazy grammar, retries, the circuit of a server that stopped answering,
the decision deadline, usage counts, tracing) is a small wrapper around this interface, stacked once by the factory
(`coopgraph.llm.factory.build_stack`), so the node adapter talks to one thing whatever sits beneath it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from coopgraph.llm.constraints import ChoiceConstraint

Messages = list[dict[str, str]]
GrammarUse = Literal["none", "applied", "unneeded"]


@dataclass(frozen=True)
class ChatRequest:
    """One call: the chat messages, an optional choice constraint, the reply cap and what the trace records."""

    messages: Messages
    constraint: ChoiceConstraint | None = None
    max_tokens: int = 256
    options: Mapping[str, Any] = field(default_factory=dict)  # per-call knobs (temperature, stop), sent only if set
    trace: Mapping[str, Any] = field(default_factory=dict)  # node, attempt...: recorded beside the call
    decision_started: float | None = None  # time.monotonic() when the node began this question: bounds retries


@dataclass(frozen=True)
class Completion:
    """One answered call with what the trace and the metrics need."""

    text: str  # the reply without control characters
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cache_hit: bool = False
    cache_key: str | None = None  # where the response cache holds this reply (to discard an unusable one)
    raw_text: str = ""  # the reply as the model wrote it, for wrappers that judge its form
    finished: bool = True  # the model stopped by itself (not cut at max_tokens)
    grammar: GrammarUse = "none"  # whether the constraint's grammar was sent, or found unneeded
    free_response: str | None = None  # the reply asked without the grammar first, when it differs from `text`


@runtime_checkable
class ChatLM(Protocol):
    """What nodes need from a language model."""

    def complete(self, request: ChatRequest) -> Completion:
        """The model's reply to `request`; raises when no reply could be had."""
        ...

    def discard(self, completion: Completion) -> bool:
        """Forget an unusable reply wherever it is stored, so asking again asks the model; True if one was."""
        ...

    def stop_reason(self, decision_started: float) -> str | None:
        """Why a decision begun at `decision_started` (time.monotonic) should start no new attempt, or None."""
        ...

    def fell_back(self, trace: Mapping[str, Any], errors: Sequence[str]) -> None:
        """No attempt at a question got a reply (each failed, was refused or ran out of time), so its node takes
        its fallback for want of a model: counted and traced (`trace` names the node)."""
        ...
