"""The one LLM interface nodes see: a dspy LM that sends chat messages through a LangChain chat model.

Routing every call through LangChain gives one transport for the embedded server, vLLM and
OpenAI (plus fakes in tests), its callbacks and its response cache; wrapping it as a dspy LM lets
the same object serve DSPy optimizers. Each call is traced with its prompt, reply, tokens,
latency and cache hit, and constrained choices get the backend's grammar.

Waiting is bounded: each request by the setting's timeout and transport retries (the chat model's), each
decision by `decision_deadline_s` (read by the node's adapter between attempts), and each run by
`max_failures`: after that many consecutive failed calls the LM stops asking and every later call fails at
once (`ModelUnavailable`, counted in `usage.errors`), so nodes take their fallback and an episode against a
dead server ends. A reply's control characters are removed before it goes anywhere, and a reply the caller
finds unusable can be `discard`ed from the response cache so the retry asks the model again.
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
from coopgraph.llm.text import strip_control

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


def _text(reply: BaseMessage) -> str:
    return reply.content if isinstance(reply.content, str) else str(reply.content)


def _finished(reply: BaseMessage) -> bool:
    """The model stopped by itself (a reply cut at max_tokens is never taken as settled)."""
    return reply.response_metadata.get("finish_reason") != "length"


class ModelUnavailable(RuntimeError):
    """The LM gave up on its server for this run after too many consecutive failed calls."""


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
    cache_key: str | None = None  # where the response cache holds this reply (to discard an unusable one)


@dataclass
class Usage:
    """Running totals for one agent's LM, read by the episode metrics."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    latency_s: float = 0.0
    errors: int = 0  # failed calls, those refused after the LM gave up on its server included
    refused: int = 0  # calls not sent because the LM had given up on its server
    discarded: int = 0  # unusable replies evicted from the response cache
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
        decision_deadline_s: float | None = None,
        max_failures: int | None = None,
    ) -> None:
        super().__init__(model=model, model_type="chat", temperature=0.0, max_tokens=256, cache=False)
        self.chat_model = chat_model
        self.backend = backend
        self.tracer = tracer
        self.settings_public = settings or {"model": model, "backend": backend}
        self.lazy_grammar = lazy_grammar
        self.decision_deadline_s = decision_deadline_s  # None: a decision may take as many attempts as it has
        self.max_failures = max_failures  # None: never give up on the server
        self.failures = 0  # consecutive failed calls
        self.usage = Usage()

    @property
    def gave_up(self) -> bool:
        """True once `max_failures` consecutive calls failed: later calls fail at once, without a request."""
        return self.max_failures is not None and self.failures >= self.max_failures

    def with_tracer(self, tracer: Any) -> CoopLM:
        """A sibling LM sharing the chat model and its cache but writing to another trace (and counting afresh)."""
        twin = CoopLM(self.chat_model, backend=self.backend, model=self.model, tracer=tracer,
                      settings=self.settings_public, lazy_grammar=self.lazy_grammar,
                      decision_deadline_s=self.decision_deadline_s, max_failures=self.max_failures)
        return twin

    def _response_cache(self) -> Any:
        """The chat model's response cache when it can forget one reply (coopgraph's SQLite cache), else None."""
        cache = self.chat_model.cache
        if cache is None:
            from langchain_core.globals import get_llm_cache

            cache = get_llm_cache()
        return cache if hasattr(cache, "evict") and hasattr(cache, "take_last_key") else None

    def discard(self, completion: Completion) -> None:
        """Forget an unusable reply in the response cache, so that asking again asks the model."""
        cache = self._response_cache()
        if cache is not None and completion.cache_key is not None:
            cache.evict(completion.cache_key)
            self.usage.discarded += 1

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
            if self.gave_up:
                self.usage.refused += 1
                raise ModelUnavailable(f"gave up on the model server after {self.failures} consecutive failed calls")
            if lazy:  # an answer-only reply is one line, and ends where a copied option's note would begin
                free, key = self._invoke(messages, None, max_tokens, {**options, "stop": ["\n", NOTE_SEPARATOR]})
            settled = settled_answer(constraint, _text(free)) if free is not None and _finished(free) else None
            if free is not None and settled is not None:
                reply, grammar = free.model_copy(update={"content": settled}), "unneeded"
                free = free if _text(free) != settled else None  # traced when the note after the option was cut
            else:
                reply, key = self._invoke(messages, constraint, max_tokens, options)
                grammar = "none" if constraint is None else "applied"
        except Exception as exc:
            self.usage.errors += 1
            if not isinstance(exc, ModelUnavailable):
                self.failures += 1
            if self.tracer is not None:
                self.tracer.event("llm_error", **(trace or {}), prompt=messages, error=f"{type(exc).__name__}: {exc}")
            raise
        self.failures = 0
        latency = time.perf_counter() - start
        usage = getattr(reply, "usage_metadata", None) or {}
        wasted = (getattr(free, "usage_metadata", None) or {}).get("output_tokens", 0) if grammar == "applied" else 0
        completion = Completion(
            text=strip_control(_text(reply)),
            prompt_tokens=int(usage.get("input_tokens", 0)),
            completion_tokens=int(usage.get("output_tokens", 0)) + int(wasted),
            latency_s=latency,
            cache_hit=bool(reply.response_metadata.get(CACHE_HIT)),
            cache_key=key,
        )
        self._count(completion, (trace or {}).get("node", ""))
        self.usage.grammar_skipped += grammar == "unneeded"
        if self.tracer is not None:
            extra = {"free_response": strip_control(_text(free))} if free is not None else {}
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
    ) -> tuple[BaseMessage, str | None]:
        """The chat model's reply and where the response cache holds it (None without a forgetting cache)."""
        call_kwargs = {"max_tokens": max_tokens, **request_kwargs(constraint, self.backend)}
        if self.backend in ("llamacpp", "vllm"):
            # ChatOpenAI renames max_tokens to max_completion_tokens, which llama.cpp's server ignores: a model
            # that never writes its stop token would then write until the context is full. Say it in their words.
            call_kwargs["extra_body"] = {**call_kwargs.get("extra_body", {}), "max_tokens": max_tokens}
        cache = self._response_cache()
        if cache is not None:
            cache.take_last_key()  # forget a key left by an earlier call on this thread
        reply = self.chat_model.invoke(to_langchain(messages), **call_kwargs, **options)
        return reply, cache.take_last_key() if cache is not None else None

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
