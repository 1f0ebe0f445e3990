"""Backends are registered by name: a setting goes to the backend its prefix (or bare name) names, an unknown
prefix lists what exists, and a new backend is one registration away."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.llm.backends import ChatBackend, backend_named, register_backend, registered_backends
from coopgraph.llm.backends.registry import _BACKENDS
from coopgraph.llm.factory import make_lm
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.settings import LLMSettingError, LLMSettings, parse_setting
from coopgraph.testing import ScriptedChatModel


def test_the_shipped_settings_keep_their_names_and_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    found = {s: (parse_setting(s).kind, parse_setting(s).backend)
             for s in ("local", "local-coop-kitchen", "openai:gpt-4o-mini", "vllm:m", "llamacpp:m")}
    assert found == {"local": ("local", "llamacpp"), "local-coop-kitchen": ("local", "llamacpp"),
                     "openai:gpt-4o-mini": ("openai", "openai"), "vllm:m": ("vllm", "vllm"),
                     "llamacpp:m": ("llamacpp", "llamacpp")}
    assert {"local", "openai", "vllm", "llamacpp"} <= set(registered_backends())


def test_an_unknown_prefix_lists_the_registered_backends() -> None:
    with pytest.raises(LLMSettingError, match=r"no backend 'anthropic' is registered.*local-tiny.*vllm:MODEL"):
        parse_setting("anthropic:claude")
    with pytest.raises(LLMSettingError, match="names no model"):
        parse_setting("vllm:")


def test_what_each_backend_can_do_is_declared() -> None:
    assert backend_named("llamacpp").capabilities.constraint == "grammar"
    assert backend_named("llamacpp").capabilities.lazy_grammar
    assert backend_named("vllm").capabilities.constraint == "regex"
    assert backend_named("openai").capabilities.constraint == "none"


class EchoBackend(ChatBackend):
    """A backend made in a test: a scripted model that says its token cap as `num_predict`."""

    name = "echo"
    forms = ("echo:MODEL",)

    def settings_for(self, setting: str, model: str, overrides: dict[str, Any]) -> LLMSettings:
        return LLMSettings(setting=setting, kind=self.name, model=model, backend=self.name, **overrides)

    def chat_model(self, settings: LLMSettings, *, cache: Any = None, slot: int = 0) -> ScriptedChatModel:
        return ScriptedChatModel(script=["Answer: B"], cache=cache)

    def request(self, chat_model: Any, request: ChatRequest, seed: int | None) -> tuple[Any, dict[str, Any]]:
        return chat_model, {"num_predict": request.max_tokens}


def test_a_registered_backend_is_reached_by_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(_BACKENDS, "echo", EchoBackend())
    lm = make_lm("echo:any", cache=False)
    assert lm.complete(ChatRequest([{"role": "user", "content": "pick"}], max_tokens=7)).text == "Answer: B"
    assert lm.chat_model.calls[0][1] == {"num_predict": 7}
    assert "echo:MODEL" in str(pytest.raises(LLMSettingError, parse_setting, "nosuch:m").value)
    with pytest.raises(ValueError, match="already registered"):
        register_backend("echo", EchoBackend())
