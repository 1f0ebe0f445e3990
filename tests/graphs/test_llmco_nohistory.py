"""`llmco-lite-nohistory` and `llmco-nohistory`: the steady variants' turns and state with the action history left
out, so a planner distilled from the greedy cook (which decides from the state alone) has no past action to copy.
`llmco-nohistory` keeps LLM-Co's Explanation/Action reply; `llmco-lite-nohistory` the action alone."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.graphs.loader import load_spec
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import kitchen_policy

#: (the variant, the steady variant it leaves the history out of, the variant's prompt)
PAIRS = [("llmco-lite-nohistory", "llmco-lite-steady", "planning/llmco_choose_lite_nohistory"),
         ("llmco-nohistory", "llmco-steady", "planning/llmco_choose_nohistory")]


def _prompts(spec: str) -> tuple[Any, list[list[str]]]:
    lm = scripted_lm(kitchen_policy)
    result = run_episode(envs.make("overcooked", layout="cramped_room"),
                         [GraphAgent(spec, lm=lm), make_partner("greedy")], max_steps=120, seed=0)
    return result, [[str(m.content) for m in msgs] for msgs, _ in lm.chat_model.calls]


def _without_history(messages: list[str]) -> list[str]:
    """What the steady variant's prompt says, less the history line and the opening's promise of it."""
    promise = ("Each time I will send you my last few actions, the state", "Each time I will send you the state")
    return [m.split("\n", 1)[1] if m.startswith("action history: ") else m.replace(*promise) for m in messages]


@pytest.mark.parametrize(("variant", "steady", "prompt"), PAIRS)
def test_the_prompt_is_the_steady_one_less_the_history_and_the_play_is_the_same(variant: str, steady: str,
                                                                                 prompt: str) -> None:
    steady_result, with_history = _prompts(steady)
    plain, without = _prompts(variant)
    assert len(with_history) == len(without) > 20
    assert all(any(m.startswith("action history: ") for m in call) for call in with_history)
    assert not any("action history" in m or "last few actions" in m for call in without for m in call)
    assert [_without_history(call) for call in with_history] == without
    # the greedy policy scripted here reads the state alone, so leaving out the history changes no choice
    assert plain.metrics == steady_result.metrics


@pytest.mark.parametrize(("variant", "steady", "prompt"), PAIRS)
def test_the_variant_changes_only_the_prompt_and_the_facts_it_needs(variant: str, steady: str, prompt: str) -> None:
    spec, base = load_spec(variant, env="overcooked").spec, load_spec(steady, env="overcooked").spec
    assert spec.nodes["list_actions"] == base.nodes["list_actions"]  # the steady rule still applies
    assert spec.nodes["choose_action"].prompt == prompt
    assert spec.nodes["choose_action"].params == base.nodes["choose_action"].params
    assert spec.nodes["retrieve"].params == {"action_texts": False}
    assert "small-model variant" in spec.description and "not the published method" in spec.description


def test_llmco_nohistory_still_asks_for_the_explanation() -> None:
    _, calls = _prompts("llmco-nohistory")
    assert all("Explanation: <a short reason for the action" in "\n".join(call) for call in calls)
    _, lite = _prompts("llmco-lite-nohistory")
    assert not any("Explanation:" in "\n".join(call) for call in lite)
