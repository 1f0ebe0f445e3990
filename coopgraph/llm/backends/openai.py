"""`openai:MODEL`: OpenAI's API, or any server that speaks its chat completions (Ollama's, LM Studio's, a proxy).

The base URL and key come from the environment (OPENAI_BASE_URL, OPENAI_API_KEY), never from files or traces.
`OpenAICompatible` is what every backend reached through `ChatOpenAI` shares (vLLM, llama.cpp's server, the
embedded model): the chat model, and the reply's token cap said as `max_tokens`, which only OpenAI's own API does
not read.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from coopgraph.llm.backends.base import ChatBackend

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from coopgraph.llm.interface import ChatRequest
    from coopgraph.llm.settings import LLMSettings

#: Where a local OpenAI-compatible server listens when OPENAI_BASE_URL names none (vLLM's and llama.cpp's default).
LOCAL_SERVER = "http://127.0.0.1:8000/v1"


def chat_openai(settings: LLMSettings, base_url: str | None, api_key: SecretStr, cache: Any) -> ChatOpenAI:
    """A ChatOpenAI asking `base_url`; the setting's `timeout_s` bounds each request and the openai client retries
    nothing (the stack's `Retry` layer does, so each retry is announced and bounded by the decision's deadline)."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=settings.model, base_url=base_url, api_key=api_key, temperature=settings.temperature,
                      seed=settings.seed, timeout=settings.timeout_s, max_retries=0, cache=cache)


class OpenAICompatible(ChatBackend):
    """A server reached through ChatOpenAI at a base URL from the environment."""

    #: The base URL when OPENAI_BASE_URL is unset (None: OpenAI's own API).
    default_base_url: str | None = LOCAL_SERVER

    def settings_for(self, setting: str, model: str, overrides: dict[str, Any]) -> LLMSettings:
        from pydantic import SecretStr

        from coopgraph.llm.settings import LLMSettingError, LLMSettings

        if not model:
            raise LLMSettingError(f"LLM setting {setting!r} names no model; use {self.name}:MODEL")
        key = os.environ.get("OPENAI_API_KEY")
        base_url = os.environ.get("OPENAI_BASE_URL") or self.default_base_url
        return LLMSettings(setting=setting, kind=self.name, model=model, backend=self.traced_as, base_url=base_url,
                           api_key=SecretStr(key) if key else None, **overrides)

    def chat_model(self, settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> BaseChatModel:
        from pydantic import SecretStr

        # The key stays a SecretStr all the way; a server that wants none still gets a placeholder, since the
        # openai client refuses to start without any key.
        return chat_openai(settings, settings.base_url, settings.api_key or SecretStr("none"), cache)

    def speaks_max_tokens(self, base_url: str | None) -> bool:
        """Whether the server reads the older `max_tokens` field (every OpenAI-compatible server but OpenAI's)."""
        return True

    def request(self, chat_model: BaseChatModel, request: ChatRequest,
                seed: int | None) -> tuple[BaseChatModel, dict[str, Any]]:
        model, kwargs = super().request(chat_model, request, seed)
        if self.speaks_max_tokens(getattr(chat_model, "openai_api_base", None)):
            # ChatOpenAI renames max_tokens to max_completion_tokens, which llama.cpp's server ignores: a model that
            # never writes its stop token would then write until the context is full. Say it in their words.
            kwargs["extra_body"] = {**kwargs.get("extra_body", {}), "max_tokens": request.max_tokens}
        return model, kwargs


class OpenAIBackend(OpenAICompatible):
    """OpenAI's API (no grammar: the lenient parser reads its choices), or another server behind `openai:`."""

    name = "openai"
    forms = ("openai:MODEL",)
    default_base_url = None

    def speaks_max_tokens(self, base_url: str | None) -> bool:
        """Ollama, llama.cpp's llama-server and LM Studio behind an `openai:` setting read `max_tokens`; only
        OpenAI's own API wants `max_completion_tokens` alone."""
        return base_url is not None and "api.openai.com" not in base_url


OPENAI = OpenAIBackend()
