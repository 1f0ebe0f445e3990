"""`local`, `local-tiny`, `local-coop`...: the embedded model, llama-cpp-python's server started by coopgraph on
loopback (`coopgraph.llm.server`) with pinned weights and adapters (`coopgraph.llm.model_files`).

It speaks llama.cpp's server's words (its settings' `backend` is `llamacpp`, whose grammar and lazy grammar its
requests use); what is its own is where the server is, how many a team spreads over (`slots`), the machine-wide
turn its servers take, and the adapter's hash beside every cached reply.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import partial
from typing import TYPE_CHECKING, Any

from coopgraph.llm.backends.openai import OpenAICompatible, chat_openai

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from coopgraph.llm.settings import LLMSettings


class EmbeddedBackend(OpenAICompatible):
    name = "local"

    @property
    def traced_as(self) -> str:
        return "llamacpp"

    def bare_names(self) -> tuple[str, ...]:
        from coopgraph.llm.model_files import MODEL_FILES

        return tuple(MODEL_FILES)

    def settings_for(self, setting: str, model: str, overrides: dict[str, Any]) -> LLMSettings:
        from coopgraph.llm.model_files import MODEL_FILES
        from coopgraph.llm.settings import LLMSettingError, LLMSettings

        if model not in MODEL_FILES:
            raise LLMSettingError(f"unknown embedded profile {model!r}; profiles: {', '.join(MODEL_FILES)}")
        files = MODEL_FILES[model]
        overrides.setdefault("reasoning_chars_max", files.reasoning_chars_max)
        overrides.setdefault("answer_format", files.answer_format)
        overrides.setdefault("drafts_messages", files.drafts_messages)
        return LLMSettings(setting=setting, kind=self.name, model=model, backend=self.traced_as, **overrides)

    def chat_model(self, settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> BaseChatModel:
        from pydantic import SecretStr

        from coopgraph.llm import server

        return chat_openai(settings, server.local_url(settings, slot), SecretStr("local"), cache)

    def slots(self, settings: LLMSettings) -> int:
        return settings.slots

    def turn(self, settings: LLMSettings) -> Callable[[], AbstractContextManager[None]] | None:
        from coopgraph.llm.server import compute_turn

        return partial(compute_turn, settings)

    def cache_namespace(self, settings: LLMSettings) -> str:
        """The pinned hashes of the profile's weights and adapter, so the response cache never answers a retrained
        adapter with what the one before it said."""
        from coopgraph.llm.model_files import MODEL_FILES

        files = MODEL_FILES.get(settings.model)
        return "" if files is None else f"{files.sha256[:16]}+{(files.adapter_sha256 or '')[:16]}"


EMBEDDED = EmbeddedBackend()
