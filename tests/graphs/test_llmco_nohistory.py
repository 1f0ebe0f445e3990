"""`llmco-lite-nohistory`: llmco-lite-steady's turns and state with the action history left out, so a planner
distilled from the greedy cook (which decides from the state alone) has no past action to copy."""

from __future__ import annotations

from typing import Any

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.graphs.loader import load_spec
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import kitchen_policy


def _prompts(spec: str) -> tuple[Any, list[list[str]]]:
    lm = scripted_lm(kitchen_policy)
    result = run_episode(envs.make("overcooked", layout="cramped_room"),
                         [GraphAgent(spec, lm=lm), make_partner("greedy")], max_steps=120, seed=0)
    return result, [[str(m.content) for m in msgs] for msgs, _ in lm.chat_model.calls]


def _without_history(messages: list[str]) -> list[str]:
    """What the steady variant's prompt says, less the history line and the opening's promise of it."""
    promise = ("Each time I will send you my last few actions, the state", "Each time I will send you the state")
    return [m.split("\n", 1)[1] if m.startswith("action history: ") else m.replace(*promise) for m in messages]


def test_the_prompt_is_the_steady_one_less_the_history_and_the_play_is_the_same() -> None:
    steady, with_history = _prompts("llmco-lite-steady")
    plain, without = _prompts("llmco-lite-nohistory")
    assert len(with_history) == len(without) > 20
    assert all(any(m.startswith("action history: ") for m in call) for call in with_history)
    assert not any("action history" in m or "last few actions" in m for call in without for m in call)
    assert [_without_history(call) for call in with_history] == without
    # the greedy policy scripted here reads the state alone, so leaving out the history changes no choice
    assert plain.metrics == steady.metrics


def test_the_variant_changes_only_the_prompt_and_the_facts_it_needs() -> None:
    variant, steady = load_spec("llmco-lite-nohistory", env="overcooked").spec, load_spec(
        "llmco-lite-steady", env="overcooked").spec
    assert variant.nodes["list_actions"] == steady.nodes["list_actions"]  # the steady rule still applies
    assert variant.nodes["choose_action"].prompt == "planning/llmco_choose_lite_nohistory"
    assert variant.nodes["choose_action"].params == steady.nodes["choose_action"].params
    assert variant.nodes["retrieve"].params == {"action_texts": False}
    assert "small-model variant" in variant.description and "not the published method" in variant.description
