"""Usage accounting: running totals of one agent's calls, read by the episode metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coopgraph.llm.circuit import ModelUnavailable
from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper


@dataclass
class Usage:
    """Running totals for one agent's LM."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    latency_s: float = 0.0
    errors: int = 0  # calls that failed after their retries, those refused by an open circuit included
    refused: int = 0  # calls not sent because their server's circuit was open
    fallbacks: int = 0  # questions no attempt got a reply to: the node took its fallback for want of a model
    discarded: int = 0  # unusable replies evicted from the response cache
    grammar_skipped: int = 0  # choices whose unconstrained reply was already exactly one option
    per_node: dict[str, int] = field(default_factory=dict)


class UsageCounter(Wrapper):
    """Adds every answered, failed, refused and discarded call, and every question left unanswered, to `usage`."""

    def __init__(self, inner: ChatLM, usage: Usage | None = None) -> None:
        super().__init__(inner)
        self.usage = usage or Usage()

    def complete(self, request: ChatRequest) -> Completion:
        u = self.usage
        try:
            completion = self.inner.complete(request)
        except ModelUnavailable:
            u.errors += 1
            u.refused += 1
            raise
        except Exception:
            u.errors += 1
            raise
        node = str(request.trace.get("node", ""))
        u.calls += 1
        u.prompt_tokens += completion.prompt_tokens
        u.completion_tokens += completion.completion_tokens
        u.cache_hits += int(completion.cache_hit)
        u.latency_s += completion.latency_s
        u.per_node[node] = u.per_node.get(node, 0) + 1
        u.grammar_skipped += completion.grammar == "unneeded"
        return completion

    def discard(self, completion: Completion) -> bool:
        evicted = self.inner.discard(completion)
        self.usage.discarded += evicted
        return evicted

    def fell_back(self, trace: Mapping[str, Any], errors: Sequence[str]) -> None:
        self.usage.fallbacks += 1
        self.inner.fell_back(trace, errors)
