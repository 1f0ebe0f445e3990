"""Build an agent's LM from a setting string; the only place that knows how each backend is reached and in
which order the LLM layer's wrappers are stacked (`build_stack`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coopgraph.llm.offline import OFFLINE_ENV, apply_offline_env
from coopgraph.llm.settings import LLMSettings, parse_setting

if TYPE_CHECKING:  # the LLM stack is imported when a model is built, never by commands that need none
    from langchain_core.language_models import BaseChatModel
    from langchain_openai import ChatOpenAI

    from coopgraph.llm.client import CoopLM
    from coopgraph.llm.constraints import Backend
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


def chat_model_for(settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> ChatOpenAI:
    """A ChatOpenAI pointed at the right server; the setting's `timeout_s` bounds each request. The openai client
    retries nothing: the stack's `Retry` layer does, so that each retry can be announced and bounded by the
    decision's deadline and the server's circuit. `slot` picks one of the embedded model's servers
    (`settings.slots`)."""
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    # The key stays a SecretStr all the way (ChatOpenAI would wrap a plain string in one anyway); a server that
    # wants none still gets a placeholder, since the openai client refuses to start without any key.
    base_url: str | None
    if settings.kind == "local":
        from coopgraph.llm.server import local_url

        base_url, api_key = local_url(settings, slot), SecretStr("local")
    else:
        base_url = settings.base_url
        api_key = settings.api_key or SecretStr("none")
    return ChatOpenAI(
        model=settings.model,
        base_url=base_url,
        api_key=api_key,
        temperature=settings.temperature,
        seed=settings.seed,
        timeout=settings.timeout_s,
        max_retries=0,
        cache=cache,
    )


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
    backend: Backend,
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

    resilience = resilience or Resilience()
    watch = watch or ServerWatch(server_name(chat_model), resilience)
    sender: ChatLM = ChatModelTransport(chat_model, backend, seed)
    if turn is not None:
        sender = TakeTurns(sender, turn)
    circuit = Circuit(ResponseCacheKeys(sender, chat_model), watch.breaker)
    inner: ChatLM = LazyGrammar(circuit) if lazy_grammar else circuit
    deadline = Deadline(inner, decision_deadline_s)
    retry = Retry(deadline, watch.announcer, max_retries=resilience.max_retries,
                  first_wait_s=resilience.retry_wait_s, max_wait_s=resilience.retry_max_wait_s)
    usage = UsageCounter(retry)
    tracing = Tracing(usage, tracer, model=model, backend=backend)
    return LMStack(top=tracing, tracing=tracing, usage=usage, retry=retry, deadline=deadline, circuit=circuit)


def server_name(chat_model: BaseChatModel) -> str:
    """The base URL a chat model asks (ChatOpenAI's `openai_api_base`), else its class name (a fake's)."""
    url = getattr(chat_model, "openai_api_base", None)
    return url if isinstance(url, str) and url else type(chat_model).__name__


def weights_identity(settings: LLMSettings) -> str:
    """The pinned hashes of an embedded profile's weights and adapter ("" for a remote model), so the response
    cache never answers a retrained adapter with what the one before it said."""
    from coopgraph.llm.model_files import MODEL_FILES

    files = MODEL_FILES.get(settings.model) if settings.kind == "local" else None
    return "" if files is None else f"{files.sha256[:16]}+{(files.adapter_sha256 or '')[:16]}"


def make_lm(
    setting: str | LLMSettings | None = None, *, tracer: Any = None, cache: bool | str | Path = True
) -> CoopLM:
    """`make_lm("local")`, `make_lm("openai:gpt-4o-mini")`...; responses cached on disk unless cache=False."""
    from coopgraph.llm.cache import SQLiteResponseCache
    from coopgraph.llm.client import CoopLM
    from coopgraph.llm.resilience import Resilience

    apply_offline_env()
    settings = setting if isinstance(setting, LLMSettings) else parse_setting(setting)
    store = None
    if cache:
        store = SQLiteResponseCache(default_cache_path() if cache is True else Path(cache),
                                    namespace=weights_identity(settings))
    chat = chat_model_for(settings, cache=store)
    lazy = settings.lazy_grammar and settings.backend == "llamacpp" and settings.temperature == 0
    members = turn = None
    if settings.kind == "local":
        from coopgraph.llm.server import compute_turn

        turn = partial(compute_turn, settings)
        if settings.slots > 1:
            members = member_chat_models(settings, chat, store)
    return CoopLM(chat, backend=settings.backend, model=settings.model, tracer=tracer, settings=settings.public(),
                  lazy_grammar=lazy, decision_deadline_s=settings.decision_deadline_s,
                  resilience=Resilience.from_settings(settings), turn=turn, member_chat_models=members)


def member_chat_models(settings: LLMSettings, first: ChatOpenAI, store: Any) -> Callable[[int], ChatOpenAI]:
    """The chat model a team's member `i` asks: the server of slot `i mod settings.slots`, started on first use."""
    made: dict[int, ChatOpenAI] = {0: first}

    def for_member(index: int) -> ChatOpenAI:
        slot = index % settings.slots
        if slot not in made:
            made[slot] = chat_model_for(settings, cache=store, slot=slot)
        return made[slot]

    return for_member
