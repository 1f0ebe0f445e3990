"""What a language-model backend is to coopgraph: how a setting names it, how its chat model is built, and how a
request (a choice among listed actions, the reply's token cap, the agent's model seed) is said in its words.

Every backend is one `ChatBackend` registered by name (`coopgraph.llm.backends.registry`); the factory, the
transport and the settings ask the registered backend and never test which one it is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

    from coopgraph.llm.constraints import ChoiceConstraint
    from coopgraph.llm.interface import ChatRequest
    from coopgraph.llm.settings import LLMSettings

#: How a backend keeps a choice among listed actions to one option: a llama.cpp grammar, a vLLM guided regex, a
#: JSON schema, a guided choice, or nothing (the node's lenient parser reads the reply: letter, text, fuzzy match).
ConstraintKind = Literal["grammar", "regex", "json_schema", "choice", "none"]
#: Where LangChain chat models keep the base URL they ask (ChatOpenAI, ChatOllama and most others, ChatAnthropic).
SERVER_FIELDS = ("openai_api_base", "base_url", "anthropic_api_url")
#: What a caller may set per call (a spec's `llm:` block sets the first two); anything else (dspy's) is dropped.
PER_CALL_OPTIONS = ("temperature", "top_p", "stop")


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, so the stack is assembled from facts rather than from its name."""

    constraint: ConstraintKind = "none"
    seeds: bool = True  # reads a per-request seed, so sampled replicates differ and reruns repeat
    lazy_grammar: bool = False  # its grammar costs enough per token that asking without it first pays (llama.cpp)


class ChatBackend(ABC):
    """One way of reaching a language model. `name` is the registry key and the prefix of its settings
    (`vllm:MODEL`); `traced_as` is what traces, manifests and the settings' `backend` field call the requests'
    dialect (the embedded model is reached as `local` but speaks llama.cpp's server's words)."""

    name: str
    capabilities: Capabilities = Capabilities()
    #: How `--llm` names this backend, for the list an unknown setting prints (`vllm:MODEL`).
    forms: tuple[str, ...] = ()

    @property
    def traced_as(self) -> str:
        return self.name

    # ------------------------------------------------------------------ settings and the chat model
    def bare_names(self) -> tuple[str, ...]:
        """Settings this backend owns without a `name:` prefix (the embedded profiles); none by default."""
        return ()

    @abstractmethod
    def settings_for(self, setting: str, model: str, overrides: dict[str, Any]) -> LLMSettings:
        """The resolved settings of `setting` (`model` is what follows `name:`, or the bare name); raises
        `LLMSettingError` with one line when the setting cannot be used (a missing package, no model)."""

    @abstractmethod
    def chat_model(self, settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> BaseChatModel:
        """The LangChain chat model asking `settings.model`, with `cache` as its response cache; it must retry
        nothing itself (the stack's `Retry` layer does) and wait at most `settings.timeout_s` per request.
        `slot` picks one of several servers of one model (`slots`)."""

    def slots(self, settings: LLMSettings) -> int:
        """How many servers of this model a team spreads its members over (member i asks slot i mod slots)."""
        return 1

    def turn(self, settings: LLMSettings) -> Callable[[], AbstractContextManager[None]] | None:
        """A machine-wide turn every request holds (the embedded servers compute one at a time), or None."""
        return None

    def cache_namespace(self, settings: LLMSettings) -> str:
        """What besides the prompt and parameters tells replies apart (an adapter's hash); "" for most."""
        return ""

    # ------------------------------------------------------------------ one request in this backend's words
    def constrain(self, constraint: ChoiceConstraint) -> dict[str, Any]:
        """Request parameters that keep the reply to one listed option; {} leaves it to the lenient parser."""
        return {}

    def request(self, chat_model: BaseChatModel, request: ChatRequest,
                seed: int | None) -> tuple[BaseChatModel, dict[str, Any]]:
        """The chat model to invoke and the parameters to send with `request` (all part of the response-cache key):
        the token cap, the constraint and the agent's model `seed` (None: the chat model's own, if any)."""
        kwargs: dict[str, Any] = {"max_tokens": request.max_tokens}
        if request.constraint is not None:
            kwargs.update(self.constrain(request.constraint))
        if seed is not None:
            kwargs["seed"] = seed
        return chat_model, {**kwargs, **per_call_options(request)}

    def server_name(self, chat_model: BaseChatModel) -> str:
        """What names the server a chat model asks, on the terminal and for its circuit: its base URL, else its
        class name (a fake's)."""
        return base_url_of(chat_model) or type(chat_model).__name__

    def finished(self, reply: BaseMessage) -> bool:
        """Whether the model stopped by itself rather than at the token cap."""
        return reply.response_metadata.get("finish_reason") != "length"


def per_call_options(request: ChatRequest) -> dict[str, Any]:
    """The per-call knobs a caller set (temperature, top_p, stop), the rest dropped."""
    return {k: v for k, v in request.options.items() if k in PER_CALL_OPTIONS}


def base_url_of(chat_model: BaseChatModel) -> str | None:
    """The base URL a chat model was given, if it keeps one in a field of a known name."""
    for field in SERVER_FIELDS:
        url = getattr(chat_model, field, None)
        if isinstance(url, str) and url:
            return url
    return None
