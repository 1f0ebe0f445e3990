"""The distilled kitchen planner for real (slow, run in CI): Gemma 270M + the Overcooked adapter, on the prompt its
profile plays (`llmco-lite-nohistory`) in a kitchen it never saw in training (the paper's layouts are held out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.llm.model_files import MODEL_FILES
from coopgraph.runtime.launch import run_configured
from tests.llm.kitchen_points import answered_points, installed_lm

pytestmark = pytest.mark.slow

SPEC = MODEL_FILES["local-coop-kitchen"].spec


@pytest.fixture(scope="module")
def kitchen_lm():
    return installed_lm("local-coop-kitchen")


def test_holding_an_onion_at_a_pot_that_needs_it_the_planner_puts_it_in(kitchen_lm) -> None:
    """The adapter's first lesson, and a check that it is loaded: the grammar makes any model answer with a listed
    action, but Gemma 270M without the adapter answers `wait.` in every one of these states (0 of 5 on the first
    20 points of a greedy pair, measured 2026-11-27), where the adapted planner puts the onion in the pot."""
    answered = answered_points(kitchen_lm, SPEC, n=20)
    assert kitchen_lm.usage.calls == len(answered) == 20
    for point, prediction in answered:
        assert prediction.valid and prediction.raw.strip() == f"Action: {point['options'][prediction.index]}"
    loading = [(point, prediction) for point, prediction in answered
               if point["options"][point["expert_index"]].startswith("place onion in")]
    assert len(loading) >= 4
    put_in = sum(prediction.index == point["expert_index"] for point, prediction in loading)
    assert put_in >= len(loading) - 1, f"put the onion in on {put_in} of {len(loading)}: is the adapter loaded?"


def test_the_distilled_planner_plays_beside_the_greedy_cook_with_listed_actions_only(kitchen_lm,
                                                                                     tmp_path: Path) -> None:
    """Every answer it gives in play is one of the feasible actions, read exactly (docs/methods/llmco.md gives the
    scores it reaches beside the greedy cook)."""
    payload = run_configured("overcooked", {}, "cramped_room", [SPEC, "greedy"], lambda: kitchen_lm, 40,
                             tmp_path, seed=0)
    assert payload.steps == 40 and payload.llm_usage["alice"]["llm_calls"] > 0
    assert payload.invalid_answers == 0 and payload.metrics["invalid_actions"] == 0
