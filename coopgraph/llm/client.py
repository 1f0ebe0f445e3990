"""CoopLM: an agent's LM, the `ChatLM` nodes call and a dspy LM for DSPy's optimizers, over one wrapper stack.

It holds the stack the factory builds (`build_stack`: transport, response-cache keys, circuit, lazy grammar,
deadline, retry, usage, tracing) and passes every call to it; its own code is only what DSPy asks of an LM
(`forward`) and read-outs of the stack's state (`usage`, `circuit`, the patience knobs).

Waiting is bounded: each request by the setting's timeout, each call by its retries (`Resilience`), each decision by
`decision_deadline_s` (asked by the node's adapter between attempts and by the retry layer before each wait), and a
server that stopped answering by its circuit, which every sibling LM asking that server shares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from types import SimpleNamespace
from typing import Any

import dspy
from langchain_core.language_models import BaseChatModel

from coopgraph.llm.circuit import CircuitBreaker
from coopgraph.llm.factory import build_stack, server_name
from coopgraph.llm.interface import ChatRequest, Completion
from coopgraph.llm.layers.usage import Usage
from coopgraph.llm.resilience import Resilience, ServerWatch


class CoopLM(dspy.BaseLM):
    """A dspy LM over a LangChain chat model; `complete` (the `ChatLM` interface) is what coopgraph's nodes call.

    `lazy_grammar` (llama.cpp at temperature 0) asks answer-only choices without their grammar first
    (`coopgraph.llm.layers.lazy_grammar`). `resilience` sets retries and the circuit (the default retries nothing
    and never opens it, as fakes want); siblings asking the same chat model share its `ServerWatch`."""

    def __init__(
        self,
        chat_model: BaseChatModel,
        *,
        backend: str = "fake",
        model: str = "fake",
        tracer: Any = None,
        settings: dict[str, Any] | None = None,
        lazy_grammar: bool = False,
        decision_deadline_s: float | None = None,
        resilience: Resilience | None = None,
        turn: Callable[[], AbstractContextManager[None]] | None = None,
        member_chat_models: Callable[[int], BaseChatModel] | None = None,
        watches: dict[int, ServerWatch] | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(model=model, model_type="chat", temperature=0.0, max_tokens=256, cache=False)
        self.chat_model = chat_model
        self.backend = backend
        self.settings_public = settings or {"model": model, "backend": backend}
        self.lazy_grammar = lazy_grammar
        self.turn = turn
        self.member_chat_models = member_chat_models
        self.resilience = resilience or Resilience()
        self.seed = seed  # the agent's model seed, sent with every request (None: the chat model's own, if any)
        # one watch per server (chat model), shared by every sibling of this LM: its circuit and announcements
        self.watches = {} if watches is None else watches
        if id(chat_model) not in self.watches:
            self.watches[id(chat_model)] = ServerWatch(server_name(chat_model, backend), self.resilience)
        watch = self.watches[id(chat_model)]
        self.stack = build_stack(chat_model, backend=backend, model=model, tracer=tracer, lazy_grammar=lazy_grammar,
                                 decision_deadline_s=decision_deadline_s, resilience=self.resilience, watch=watch,
                                 turn=turn, seed=seed)

    # ------------------------------------------------------------------ the ChatLM interface
    def complete(self, request: ChatRequest) -> Completion:
        return self.stack.top.complete(request)

    def discard(self, completion: Completion) -> bool:
        """Forget an unusable reply in the response cache, so that asking again asks the model."""
        return self.stack.top.discard(completion)

    def stop_reason(self, decision_started: float) -> str | None:
        return self.stack.top.stop_reason(decision_started)

    def fell_back(self, trace: Mapping[str, Any], errors: Sequence[str]) -> None:
        self.stack.top.fell_back(trace, errors)

    # ------------------------------------------------------------------ the stack's state
    @property
    def tracer(self) -> Any:
        return self.stack.tracing.tracer

    @property
    def usage(self) -> Usage:
        return self.stack.usage.usage

    @property
    def decision_deadline_s(self) -> float | None:
        """None: a decision may take as many attempts as it has."""
        return self.stack.deadline.decision_deadline_s

    @decision_deadline_s.setter
    def decision_deadline_s(self, seconds: float | None) -> None:
        self.stack.deadline.decision_deadline_s = seconds

    @property
    def max_failures(self) -> int | None:
        """Requests in a row without an answer that open the server's circuit (None: it never opens)."""
        return self.resilience.max_failures

    @property
    def circuit(self) -> CircuitBreaker:
        """The circuit of the server this LM asks, shared with its siblings."""
        return self.stack.circuit.breaker

    def with_tracer(self, tracer: Any) -> CoopLM:
        """A sibling LM sharing the chat model and its cache but writing to another trace (and counting afresh)."""
        return self._sibling(self.chat_model, tracer)

    def with_seed(self, seed: int) -> CoopLM:
        """A sibling LM that sends `seed` (an agent's model seed, `coopgraph.llm.seeds`) with every request, so the
        replies it samples, and the response-cache entries they are stored under, are that replicate's own."""
        sibling = self._sibling(self.chat_model, self.tracer, seed)
        sibling.settings_public = {**self.settings_public, "seed": seed}
        return sibling

    def for_member(self, index: int) -> CoopLM:
        """The LM member `index` of a team asks: the same model on that member's own server when the embedded model
        runs several (so each member's prompt prefix stays cached), else this LM."""
        if self.member_chat_models is None:
            return self
        return self._sibling(self.member_chat_models(index), self.tracer)

    def _sibling(self, chat_model: BaseChatModel, tracer: Any, seed: int | None = None) -> CoopLM:
        return CoopLM(chat_model, backend=self.backend, model=self.model, tracer=tracer,
                      settings=self.settings_public, lazy_grammar=self.lazy_grammar,
                      decision_deadline_s=self.decision_deadline_s, resilience=self.resilience, turn=self.turn,
                      member_chat_models=self.member_chat_models, watches=self.watches,
                      seed=self.seed if seed is None else seed)

    # ------------------------------------------------------------------ dspy
    def forward(self, prompt: str | None = None, messages: list[dict[str, str]] | None = None, **kwargs: Any) -> Any:
        """DSPy's generic entry point (other adapters, optimizers' proposers): an OpenAI-shaped reply."""
        messages = messages or [{"role": "user", "content": prompt or ""}]
        done = self.complete(ChatRequest(messages, max_tokens=int(kwargs.get("max_tokens") or 512)))
        message = SimpleNamespace(content=done.text, tool_calls=None, reasoning_content=None)
        usage = {"prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens,
                 "total_tokens": done.prompt_tokens + done.completion_tokens}
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message, finish_reason="stop", logprobs=None)],
            usage=usage, model=self.model, cache_hit=done.cache_hit,
        )
