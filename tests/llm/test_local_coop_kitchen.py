"""The distilled kitchen planner for real (slow, run in CI): Gemma 270M + the Overcooked adapter, on llmco-lite's
prompt in a kitchen it never saw in training (the paper's layouts are held out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.evals.overcooked_decisions import KITCHEN_SPEC
from coopgraph.runtime.launch import run_configured
from tests.llm.kitchen_points import answered_points, installed_lm

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kitchen_lm():
    return installed_lm("local-coop-kitchen")


def test_answers_held_out_kitchen_decisions_with_a_listed_action(kitchen_lm) -> None:
    answered = answered_points(kitchen_lm, KITCHEN_SPEC)
    points = [point for point, _ in answered]
    agree = 0
    for point, prediction in answered:
        assert prediction.valid and prediction.raw.strip() == f"Action: {point['options'][prediction.index]}"
        agree += prediction.index == point["expert_index"]
    assert kitchen_lm.usage.calls == len(points)
    # random choice agrees on about 1 in 4 of these points; an adapter that is not applied does not say `Action:`
    assert agree >= 3, f"agreed on {agree} of {len(points)}: is the adapter loaded?"


def test_the_distilled_planner_plays_beside_the_greedy_cook_with_listed_actions_only(kitchen_lm,
                                                                                     tmp_path: Path) -> None:
    """Every answer it gives in play is one of the feasible actions, read exactly (docs/methods/llmco.md gives the
    scores it reaches beside the greedy cook)."""
    payload = run_configured("overcooked", {}, "cramped_room", [KITCHEN_SPEC, "greedy"], lambda: kitchen_lm, 40,
                             tmp_path, seed=0)
    assert payload.steps == 40 and payload.llm_usage["alice"]["llm_calls"] > 0
    assert payload.invalid_answers == 0 and payload.metrics["invalid_actions"] == 0
