"""The factory stacks the LLM layer's wrappers in one fixed order, lazy grammar only where it is safe."""

from __future__ import annotations

from typing import Any

from coopgraph.llm.factory import build_stack, make_lm
from coopgraph.llm.layers.base import Wrapper
from coopgraph.llm.settings import LLMSettings
from coopgraph.testing import ScriptedChatModel


def _layers(top: Any) -> list[str]:
    names = []
    while True:
        names.append(type(top).__name__)
        if not isinstance(top, Wrapper):
            return names
        top = top.inner


def test_the_wrappers_are_stacked_in_one_order() -> None:
    stack = build_stack(ScriptedChatModel(script=["x"]), backend="llamacpp", model="m", lazy_grammar=True)
    assert _layers(stack.top) == ["Tracing", "UsageCounter", "CallLimit", "Deadline", "LazyGrammar",
                                  "ResponseCacheKeys", "ChatModelTransport"]
    plain = build_stack(ScriptedChatModel(script=["x"]), backend="openai", model="m")
    assert "LazyGrammar" not in _layers(plain.top)


def test_the_named_layers_hold_the_settings_knobs() -> None:
    stack = build_stack(ScriptedChatModel(script=["x"]), backend="vllm", model="m", decision_deadline_s=9.0,
                        max_failures=3)
    assert (stack.deadline.decision_deadline_s, stack.call_limit.max_failures) == (9.0, 3)


def _lazy(**fields: Any) -> bool:
    settings = LLMSettings(setting="s", kind="llamacpp", model="m", base_url="http://127.0.0.1:9/v1",
                           **{"backend": "llamacpp", **fields})
    return "LazyGrammar" in _layers(make_lm(settings, cache=False).stack.top)


def test_lazy_grammar_only_for_llamacpp_at_temperature_zero() -> None:
    assert _lazy() and not _lazy(temperature=0.7) and not _lazy(lazy_grammar=False) and not _lazy(backend="vllm")
