"""Build an agent's LM from a setting string: the setting's registered backend (`coopgraph.llm.backends`) builds
the chat model, and this module stacks the LLM layer's wrappers around it, always in one order (`build_stack`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coopgraph.llm.offline import OFFLINE_ENV, apply_offline_env
from coopgraph.llm.settings import LLMSettings, parse_setting

if TYPE_CHECKING:  # the LLM stack is imported when a model is built, never by commands that need none
    from langchain_core.language_models import BaseChatModel

    from coopgraph.llm.backends.base import ChatBackend
    from coopgraph.llm.client import CoopLM
    from coopgraph.llm.interface import ChatLM
    from coopgraph.llm.layers.circuit import Circuit
    from coopgraph.llm.layers.deadline import Deadline
    from coopgraph.llm.layers.retry import Retry
    from coopgraph.llm.layers.tracing import Tracing
    from coopgraph.llm.layers.usage import UsageCounter
    from coopgraph.llm.resilience import Resilience, ServerWatch

__all__ = ["OFFLINE_ENV", "LMStack", "apply_offline_env", "build_stack", "chat_model_for", "default_cache_path",
           "make_lm"]


def default_cache_path() -> Path:
    root = os.environ.get("COOPGRAPH_CACHE") or Path.home() / ".cache" / "coopgraph"
    return Path(root) / "responses.sqlite"


def chat_model_for(settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> BaseChatModel:
    """The chat model the setting's backend builds (`ChatBackend.chat_model`); `slot` picks one of the servers a
    team spreads over (the embedded model's `settings.slots`)."""
    from coopgraph.llm.backends import backend_named

    return backend_named(settings.kind).chat_model(settings, cache=cache, slot=slot)


@dataclass(frozen=True)
class LMStack:
    """The stacked wrappers: `top` answers calls; the named layers hold the state callers read or set."""

    top: ChatLM
    tracing: Tracing
    usage: UsageCounter
    retry: Retry
    deadline: Deadline
    circuit: Circuit


def build_stack(
    chat_model: BaseChatModel,
    *,
    backend: str | ChatBackend,
    model: str,
    tracer: Any = None,
    lazy_grammar: bool = False,
    decision_deadline_s: float | None = None,
    resilience: Resilience | None = None,
    watch: ServerWatch | None = None,
    turn: Callable[[], AbstractContextManager[None]] | None = None,
    seed: int | None = None,
) -> LMStack:
    """The wrappers around one chat model, always in this order (outermost first):

    tracing > usage > retry > deadline > [lazy grammar] > circuit > response-cache keys > [turns] > transport.

    Tracing and usage see each node call once, however many requests retries and lazy grammar made for it; a
    refused call is traced and counted as an error; the retry layer asks the deadline and the circuit (through
    `stop_reason`) before each retry; the circuit sees every request on its own; the cache layer notes the entry
    each request read or wrote; the transport sends `seed` (the agent's model seed)
    with every request. `watch` is the server's shared circuit and announcements (a new one when None)."""
    from coopgraph.llm.backends import backend_named
    from coopgraph.llm.layers.circuit import Circuit
    from coopgraph.llm.layers.deadline import Deadline
    from coopgraph.llm.layers.lazy_grammar import LazyGrammar
    from coopgraph.llm.layers.response_cache import ResponseCacheKeys
    from coopgraph.llm.layers.retry import Retry
    from coopgraph.llm.layers.tracing import Tracing
    from coopgraph.llm.layers.transport import ChatModelTransport
    from coopgraph.llm.layers.turns import TakeTurns
    from coopgraph.llm.layers.usage import UsageCounter
    from coopgraph.llm.resilience import Resilience, ServerWatch

    speaks = backend_named(backend) if isinstance(backend, str) else backend
    resilience = resilience or Resilience()
    watch = watch or ServerWatch(speaks.server_name(chat_model), resilience)
    sender: ChatLM = ChatModelTransport(chat_model, speaks, seed)
    if turn is not None:
        sender = TakeTurns(sender, turn)
    circuit = Circuit(ResponseCacheKeys(sender, chat_model), watch.breaker)
    inner: ChatLM = LazyGrammar(circuit) if lazy_grammar else circuit
    deadline = Deadline(inner, decision_deadline_s)
    retry = Retry(deadline, watch.announcer, max_retries=resilience.max_retries,
                  first_wait_s=resilience.retry_wait_s, max_wait_s=resilience.retry_max_wait_s)
    usage = UsageCounter(retry)
    tracing = Tracing(usage, tracer, model=model, backend=speaks.traced_as)
    return LMStack(top=tracing, tracing=tracing, usage=usage, retry=retry, deadline=deadline, circuit=circuit)


def server_name(chat_model: BaseChatModel, backend: str | ChatBackend = "fake") -> str:
    """What names the server `chat_model` asks (`ChatBackend.server_name`: its base URL, else its class name)."""
    from coopgraph.llm.backends import backend_named

    return (backend_named(backend) if isinstance(backend, str) else backend).server_name(chat_model)


def weights_identity(settings: LLMSettings) -> str:
    """What besides prompt and parameters tells the setting's replies apart in the response cache (an embedded
    profile's weights and adapter hashes; "" for a remote model)."""
    from coopgraph.llm.backends import backend_named

    return backend_named(settings.kind).cache_namespace(settings)


def make_lm(
    setting: str | LLMSettings | None = None, *, tracer: Any = None, cache: bool | str | Path = True
) -> CoopLM:
    """`make_lm("local")`, `make_lm("openai:gpt-4o-mini")`...; responses cached on disk unless cache=False."""
    from coopgraph.llm.backends import backend_named
    from coopgraph.llm.cache import SQLiteResponseCache
    from coopgraph.llm.client import CoopLM
    from coopgraph.llm.resilience import Resilience

    apply_offline_env()
    settings = setting if isinstance(setting, LLMSettings) else parse_setting(setting)
    store = None
    if cache:
        store = SQLiteResponseCache(default_cache_path() if cache is True else Path(cache),
                                    namespace=weights_identity(settings))
    builder, speaks = backend_named(settings.kind), backend_named(settings.backend)
    chat = builder.chat_model(settings, cache=store)
    lazy = settings.lazy_grammar and speaks.capabilities.lazy_grammar and settings.temperature == 0
    members = member_chat_models(settings, chat, store) if builder.slots(settings) > 1 else None
    return CoopLM(chat, backend=settings.backend, model=settings.model, tracer=tracer, settings=settings.public(),
                  lazy_grammar=lazy, decision_deadline_s=settings.decision_deadline_s,
                  resilience=Resilience.from_settings(settings), turn=builder.turn(settings),
                  member_chat_models=members)


def member_chat_models(settings: LLMSettings, first: BaseChatModel,
                       store: Any) -> Callable[[int], BaseChatModel]:
    """The chat model a team's member `i` asks: the server of slot `i mod slots`, started on first use."""
    from coopgraph.llm.backends import backend_named

    slots = backend_named(settings.kind).slots(settings)
    made: dict[int, BaseChatModel] = {0: first}

    def for_member(index: int) -> BaseChatModel:
        slot = index % slots
        if slot not in made:
            made[slot] = chat_model_for(settings, cache=store, slot=slot)
        return made[slot]

    return for_member
