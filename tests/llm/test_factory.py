"""The factory stacks the LLM layer's wrappers in one fixed order, lazy grammar only where it is safe."""

from __future__ import annotations

from typing import Any

from coopgraph.llm.factory import build_stack, make_lm
from coopgraph.llm.layers.base import Wrapper
from coopgraph.llm.resilience import Resilience
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
    assert _layers(stack.top) == ["Tracing", "UsageCounter", "Retry", "Deadline", "LazyGrammar", "Circuit",
                                  "ResponseCacheKeys", "ChatModelTransport"]
    plain = build_stack(ScriptedChatModel(script=["x"]), backend="openai", model="m")
    assert "LazyGrammar" not in _layers(plain.top)


def test_the_named_layers_hold_the_settings_knobs() -> None:
    stack = build_stack(ScriptedChatModel(script=["x"]), backend="vllm", model="m", decision_deadline_s=9.0,
                        resilience=Resilience(max_retries=4, max_failures=3, cooldown_s=7.0))
    assert (stack.deadline.decision_deadline_s, stack.retry.max_retries) == (9.0, 4)
    assert (stack.circuit.breaker.failures_to_open, stack.circuit.breaker.cooldown_s) == (3, 7.0)


def test_the_settings_knobs_reach_the_stack_and_the_openai_client_retries_nothing() -> None:
    settings = LLMSettings(setting="vllm:m", kind="vllm", model="m", backend="vllm",
                           base_url="http://user:secret@127.0.0.1:9/v1?key=k", max_retries=3, retry_wait_s=0.1,
                           retry_max_wait_s=5.0, max_failures=4, circuit_cooldown_s=12.0, circuit_max_cooldown_s=60.0)
    lm = make_lm(settings, cache=False)
    assert lm.chat_model.max_retries == 0  # the Retry layer retries, so each retry is bounded and announced
    assert (lm.stack.retry.max_retries, lm.stack.retry.max_wait_s) == (3, 5.0)
    breaker = lm.circuit
    assert (breaker.failures_to_open, breaker.cooldown_s, breaker.max_cooldown_s) == (4, 12.0, 60.0)
    assert breaker.announcer.server == "http://127.0.0.1:9/v1"  # no user, password or query on the terminal


def _lazy(**fields: Any) -> bool:
    settings = LLMSettings(setting="s", kind="llamacpp", model="m", base_url="http://127.0.0.1:9/v1",
                           **{"backend": "llamacpp", **fields})
    return "LazyGrammar" in _layers(make_lm(settings, cache=False).stack.top)


def test_lazy_grammar_only_for_llamacpp_at_temperature_zero() -> None:
    assert _lazy() and not _lazy(temperature=0.7) and not _lazy(lazy_grammar=False) and not _lazy(backend="vllm")
