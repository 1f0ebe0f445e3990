"""`fake`: the scripted chat models of tests and examples (`coopgraph.testing`), which read no grammar and no
server; choices are parsed leniently. It has no `--llm` form: a `CoopLM` is built around the fake directly."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.llm.backends.base import ChatBackend

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from coopgraph.llm.settings import LLMSettings


class FakeBackend(ChatBackend):
    name = "fake"

    def settings_for(self, setting: str, model: str, overrides: dict[str, Any]) -> LLMSettings:
        from coopgraph.llm.settings import LLMSettingError

        raise LLMSettingError("the fake backend is built in code (coopgraph.testing.scripted_lm), not named by --llm")

    def chat_model(self, settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> BaseChatModel:
        from coopgraph.testing import ScriptedChatModel

        return ScriptedChatModel(script=[], cache=cache)


FAKE = FakeBackend()
