"""A spec's `llm:` block: typed, checked with file:line, sent with every call, and part of the cache key."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.graphs.compiler import node_context
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec
from coopgraph.llm.cache import SQLiteResponseCache
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for, run_program
from coopgraph.testing import scripted_lm

OPTIONS = ["[goexplore] <kitchen> (1)", "[goexplore] <bedroom> (2)"]
FACTS = {"agent_name": "Alice", "partner_names": ["Bob"], "goal": "g", "progress": "p", "dialogue": "",
         "previous_actions": "", "step": 1, "max_steps": 250}


def test_an_out_of_range_sampling_value_is_a_coded_error_with_its_line(tmp_path: Path) -> None:
    spec = tmp_path / "hot.yaml"
    spec.write_text("extends: coela\nllm:\n  temperature: 9\n", encoding="utf-8")
    with pytest.raises(SpecInvalid) as bad:
        load_spec(spec)
    error = bad.value.errors[0]
    assert error.code == "E201" and error.line == 3 and "llm.temperature" in error.message


def test_the_variants_ask_as_the_setting_does() -> None:
    assert load_spec("coela").spec.llm.options() == {"temperature": 0.7, "top_p": 1.0}
    for variant in ("coela-lite", "coela-news", "coela-brief"):
        assert load_spec(variant).spec.llm.options() == {} and load_spec(variant).spec.llm.max_tokens is None


def _choose(spec: str | Path, lm) -> object:
    ctx = node_context(load_spec(spec), "choose_action", AgentResources(env="cwah", lm=lm))
    return run_program(ctx.program, adapter_for(ctx), lm, context=FACTS, options=OPTIONS)


def test_the_sampling_is_part_of_the_cache_key(tmp_path: Path) -> None:
    cache = SQLiteResponseCache(tmp_path / "cache.sqlite")
    first = scripted_lm(["I look around.\nAnswer: B"], cache=cache)
    assert _choose("coela", first).index == 1
    again = scripted_lm(["Answer: A"], cache=cache)  # the same prompt and sampling: read back, never asked
    assert _choose("coela", again).index == 1 and not again.chat_model.calls
    cold = tmp_path / "cold.yaml"  # the very same prompt at temperature 0: another key, so the model is asked
    cold.write_text("extends: coela\nllm: {temperature: 0.0, top_p: 1.0, max_tokens: 256}\n", encoding="utf-8")
    asked = scripted_lm(["Answer: A"], cache=cache)
    assert _choose(cold, asked).index == 0 and len(asked.chat_model.calls) == 1
    assert asked.chat_model.prompts() == first.chat_model.prompts()


def test_a_free_thought_cut_off_before_its_answer_is_no_answer() -> None:
    """"I think ..." must not read as option I: without an `Answer:` line the node asks for the answer alone, the
    thought kept as the model's turn; an unusable conclusion asks the whole question again, then falls back."""
    options = [f"[gocheck] <cabinet> ({i})" for i in range(12)]
    lm = scripted_lm(["I think the cabinet in the kitchen is the one to", "Answer: J"])
    ctx = node_context(load_spec("coela"), "choose_action", AgentResources(env="cwah", lm=lm))
    prediction = run_program(ctx.program, adapter_for(ctx), lm, context=FACTS, options=options)
    assert prediction.index == 9 and prediction.attempts == 1
    closing = lm.chat_model.calls[1][0]
    assert closing[-2].content == "I think the cabinet in the kitchen is the one to" and closing[-2].type == "ai"
    lm = scripted_lm(["I think the cabinet in the kitchen is the one to", "no idea", "Let me see. Answer: J"])
    ctx = node_context(load_spec("coela"), "choose_action", AgentResources(env="cwah", lm=lm))
    prediction = run_program(ctx.program, adapter_for(ctx), lm, context=FACTS, options=options)
    assert prediction.index == 9 and prediction.attempts == 2 and len(lm.chat_model.calls) == 3


def test_a_run_records_each_wirings_sampling() -> None:
    from coopgraph.graphs.resolved import resolved_spec
    from coopgraph.record.manifest import manifest

    recorded = manifest(specs={"alice": "coela", "bob": "coela-brief"})["specs"]
    assert recorded["alice"]["sampling"] == {"temperature": 0.7, "top_p": 1.0, "max_tokens": 256}
    assert recorded["bob"]["sampling"] == {}
    assert resolved_spec(load_spec("coela"))["llm"] == recorded["alice"]["sampling"]
