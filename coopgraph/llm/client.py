"""The one LLM interface nodes see: a dspy LM that sends chat messages through a LangChain chat model.

Routing every call through LangChain gives one transport for the embedded server, vLLM and
OpenAI (plus fakes in tests), its callbacks and its response cache; wrapping it as a dspy LM lets
the same object serve DSPy optimizers. Each call is traced with its prompt, reply, tokens,
latency and cache hit, and constrained choices get the backend's grammar.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import dspy
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from coopgraph.llm.cache import CACHE_HIT
from coopgraph.llm.constraints import NOTE_SEPARATOR, Backend, ChoiceConstraint, request_kwargs, settled_answer

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


def _text(reply: BaseMessage) -> str:
    return reply.content if isinstance(reply.content, str) else str(reply.content)


def _finished(reply: BaseMessage) -> bool:
    """The model stopped by itself (a reply cut at max_tokens is never taken as settled)."""
    return reply.response_metadata.get("finish_reason") != "length"


def to_langchain(messages: list[dict[str, str]]) -> list[BaseMessage]:
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


@dataclass
class Completion:
    """One answered call with what the trace and the metrics need."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cache_hit: bool = False


@dataclass
class Usage:
    """Running totals for one agent's LM, read by the episode metrics."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    latency_s: float = 0.0
    errors: int = 0
    grammar_skipped: int = 0  # choices whose unconstrained reply was already exactly one option
    per_node: dict[str, int] = field(default_factory=dict)


class CoopLM(dspy.BaseLM):
    """A dspy LM over a LangChain chat model; `complete_chat` is the path coopgraph's nodes use.

    With `lazy_grammar` (llama.cpp at temperature 0) an answer-only choice is first asked without its grammar:
    llama.cpp checks a grammar against every token of the vocabulary at every step, which for Gemma's 262k
    tokens costs more than the answer itself. A reply that is already one option (or one option and then its
    note, which is cut) is what the grammar would have produced (`settled_answer`); anything else is asked again
    with the grammar, from the cached prompt.
    """

    def __init__(
        self,
        chat_model: BaseChatModel,
        *,
        backend: Backend = "fake",
        model: str = "fake",
        tracer: Any = None,
        settings: dict[str, Any] | None = None,
        lazy_grammar: bool = False,
    ) -> None:
        super().__init__(model=model, model_type="chat", temperature=0.0, max_tokens=256, cache=False)
        self.chat_model = chat_model
        self.backend = backend
        self.tracer = tracer
        self.settings_public = settings or {"model": model, "backend": backend}
        self.lazy_grammar = lazy_grammar
        self.usage = Usage()

    def with_tracer(self, tracer: Any) -> CoopLM:
        """A sibling LM sharing the chat model and its cache but writing to another trace."""
        twin = CoopLM(self.chat_model, backend=self.backend, model=self.model, tracer=tracer,
                      settings=self.settings_public, lazy_grammar=self.lazy_grammar)
        return twin

    def complete_chat(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: ChoiceConstraint | None = None,
        max_tokens: int = 256,
        trace: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Completion:
        options = {k: v for k, v in kwargs.items() if k in ("temperature", "stop")}
        lazy = (self.lazy_grammar and constraint is not None and constraint.reasoning_chars == 0
                and not options.get("temperature"))
        start = time.perf_counter()
        free: BaseMessage | None = None
        try:
            if lazy:  # an answer-only reply is one line, and ends where a copied option's note would begin
                free = self._invoke(messages, None, max_tokens, {**options, "stop": ["\n", NOTE_SEPARATOR]})
            settled = settled_answer(constraint, _text(free)) if free is not None and _finished(free) else None
            if free is not None and settled is not None:
                reply, grammar = free.model_copy(update={"content": settled}), "unneeded"
                free = free if _text(free) != settled else None  # traced when the note after the option was cut
            else:
                reply = self._invoke(messages, constraint, max_tokens, options)
                grammar = "none" if constraint is None else "applied"
        except Exception as exc:
            self.usage.errors += 1
            if self.tracer is not None:
                self.tracer.event("llm_error", **(trace or {}), prompt=messages, error=f"{type(exc).__name__}: {exc}")
            raise
        latency = time.perf_counter() - start
        usage = getattr(reply, "usage_metadata", None) or {}
        wasted = (getattr(free, "usage_metadata", None) or {}).get("output_tokens", 0) if grammar == "applied" else 0
        completion = Completion(
            text=_text(reply),
            prompt_tokens=int(usage.get("input_tokens", 0)),
            completion_tokens=int(usage.get("output_tokens", 0)) + int(wasted),
            latency_s=latency,
            cache_hit=bool(reply.response_metadata.get(CACHE_HIT)),
        )
        self._count(completion, (trace or {}).get("node", ""))
        self.usage.grammar_skipped += grammar == "unneeded"
        if self.tracer is not None:
            extra = {"free_response": _text(free)} if free is not None else {}
            self.tracer.event(
                "llm_call", **(trace or {}), model=self.model, backend=self.backend, prompt=messages,
                response=completion.text, prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens, latency_s=round(latency, 4),
                cache_hit=completion.cache_hit, constrained=constraint is not None, grammar=grammar, **extra,
            )
        return completion

    def _invoke(
        self, messages: list[dict[str, str]], constraint: ChoiceConstraint | None, max_tokens: int,
        options: dict[str, Any],
    ) -> BaseMessage:
        call_kwargs = {"max_tokens": max_tokens, **request_kwargs(constraint, self.backend)}
        if self.backend in ("llamacpp", "vllm"):
            # ChatOpenAI renames max_tokens to max_completion_tokens, which llama.cpp's server ignores: a model
            # that never writes its stop token would then write until the context is full. Say it in their words.
            call_kwargs["extra_body"] = {**call_kwargs.get("extra_body", {}), "max_tokens": max_tokens}
        return self.chat_model.invoke(to_langchain(messages), **call_kwargs, **options)

    def _count(self, completion: Completion, node: str) -> None:
        u = self.usage
        u.calls += 1
        u.prompt_tokens += completion.prompt_tokens
        u.completion_tokens += completion.completion_tokens
        u.cache_hits += int(completion.cache_hit)
        u.latency_s += completion.latency_s
        u.per_node[node] = u.per_node.get(node, 0) + 1

    def forward(self, prompt: str | None = None, messages: list[dict[str, str]] | None = None, **kwargs: Any):
        """DSPy's generic entry point (other adapters, optimizers' proposers): an OpenAI-shaped reply."""
        messages = messages or [{"role": "user", "content": prompt or ""}]
        done = self.complete_chat(messages, max_tokens=int(kwargs.get("max_tokens") or 512))
        message = SimpleNamespace(content=done.text, tool_calls=None, reasoning_content=None)
        usage = {"prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens,
                 "total_tokens": done.prompt_tokens + done.completion_tokens}
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message, finish_reason="stop", logprobs=None)],
            usage=usage, model=self.model, cache_hit=done.cache_hit,
        )
