"""`langchain:PROVIDER:MODEL`: any LangChain chat model by its provider's name (`langchain:anthropic:claude-haiku-4-5`,
`langchain:ollama:llama3.2`), built by LangChain's `init_chat_model` from the provider's own package.

Its credentials and server come from the provider package's own environment (ANTHROPIC_API_KEY, OLLAMA_HOST...),
never from coopgraph's files or traces. Providers do not share a way of confining a reply to listed options, so
choices are read by the lenient parser (letter, text, fuzzy match); the request's knobs (token cap, temperature,
top-p, the agent's model seed) are set on the chat model's own fields under whichever name the provider gives them
(`max_tokens`, Ollama's `num_predict`...), and a knob the provider lacks is not sent.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from coopgraph.llm.backends.base import Capabilities, ChatBackend, base_url_of

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

    from coopgraph.llm.interface import ChatRequest
    from coopgraph.llm.settings import LLMSettings

INSTALL_HINT = "pip install 'coopgraph[langchain]'"
#: The names providers give the reply's token cap, in the order they are tried against a chat model's fields.
TOKEN_CAP_FIELDS = ("max_tokens", "num_predict", "max_output_tokens", "max_new_tokens")
#: The other per-request knobs, set only where the chat model has a field of that name.
KNOB_FIELDS = ("temperature", "top_p", "seed")


def _provider_kwargs(provider: str, settings: LLMSettings) -> dict[str, Any]:
    """What bounds a request's wait where the standard `timeout` does not reach (Ollama's client waits forever)."""
    if provider == "ollama":
        return {"client_kwargs": {"timeout": settings.timeout_s}}
    return {}


def _provider_package(provider: str) -> str | None:
    """The module `init_chat_model` imports for `provider`, when LangChain's table says (None: it will say)."""
    try:
        from langchain.chat_models import base
    except ImportError:
        return None
    entry = getattr(base, "_BUILTIN_PROVIDERS", {}).get(provider)
    return entry[0].split(".")[0] if entry else None


class LangChainBackend(ChatBackend):
    name = "langchain"
    forms = ("langchain:PROVIDER:MODEL",)
    capabilities = Capabilities(constraint="none", seeds=False)

    def settings_for(self, setting: str, model: str, overrides: dict[str, Any]) -> LLMSettings:
        from coopgraph.llm.settings import LLMSettingError, LLMSettings

        provider, _, name = model.partition(":")
        if not provider or not name:
            raise LLMSettingError(f"LLM setting {setting!r}: use langchain:PROVIDER:MODEL "
                                  "(e.g. langchain:anthropic:claude-haiku-4-5, langchain:ollama:llama3.2)")
        if importlib.util.find_spec("langchain") is None:
            raise LLMSettingError(f"LLM setting {setting!r} needs LangChain's init_chat_model: {INSTALL_HINT} "
                                  f"and the {provider} provider's package")
        package = _provider_package(provider)
        if package is not None and importlib.util.find_spec(package) is None:
            raise LLMSettingError(f"LLM setting {setting!r} needs the {package.replace('_', '-')} package: "
                                  f"pip install {package.replace('_', '-')}")
        return LLMSettings(setting=setting, kind=self.name, model=model, backend=self.traced_as, **overrides)

    def chat_model(self, settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> BaseChatModel:
        from langchain.chat_models import init_chat_model

        from coopgraph.llm.settings import LLMSettingError

        provider, _, name = settings.model.partition(":")
        try:  # LangChain's standard parameters; a provider without one ignores it or has its own (below)
            return init_chat_model(name, model_provider=provider, temperature=settings.temperature,
                                   timeout=settings.timeout_s, max_retries=0, cache=cache,
                                   **_provider_kwargs(provider, settings))
        except (ImportError, ValueError) as exc:  # a missing package is named; an unknown provider lists them
            raise LLMSettingError(f"LLM setting {settings.setting!r}: {' '.join(str(exc).split())}") from None

    def request(self, chat_model: BaseChatModel, request: ChatRequest,
                seed: int | None) -> tuple[BaseChatModel, dict[str, Any]]:
        """The chat model with this request's knobs on its own fields (a copy sharing its client and cache), and
        `stop` as LangChain's standard call parameter."""
        fields = type(chat_model).model_fields
        update: dict[str, Any] = {}
        cap = next((f for f in TOKEN_CAP_FIELDS if f in fields), None)
        if cap is not None:
            update[cap] = request.max_tokens
        knobs = {**request.options, **({"seed": seed} if seed is not None else {})}
        update.update({k: knobs[k] for k in KNOB_FIELDS if k in knobs and k in fields})
        kwargs = {"stop": request.options["stop"]} if "stop" in request.options else {}
        return chat_model.model_copy(update=update), kwargs

    def server_name(self, chat_model: BaseChatModel) -> str:
        """The base URL it was given, else the one its provider's client chose (Ollama's from OLLAMA_HOST), else
        the provider's class name."""
        url = base_url_of(chat_model)
        if url is None:
            try:  # the provider's client, or the httpx client inside it; building one may fail (no key): no name
                client = getattr(chat_model, "_client", None)
                found = getattr(getattr(client, "_client", client), "base_url", None)
            except Exception:  # noqa: BLE001 - only a name for the terminal is at stake
                found = None
            url = str(found) if found else None
        return url or type(chat_model).__name__

    def finished(self, reply: BaseMessage) -> bool:
        """Stopped by itself: no provider's word for the token cap (OpenAI's `length`, Ollama's `done_reason`,
        Anthropic's `max_tokens`, Google's `MAX_TOKENS`)."""
        meta = reply.response_metadata
        reasons = {meta.get(k) for k in ("finish_reason", "done_reason", "stop_reason")}
        return not reasons & {"length", "max_tokens", "MAX_TOKENS"}


LANGCHAIN = LangChainBackend()
