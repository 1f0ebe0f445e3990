"""The distilled kitchen planner for real (slow, run in CI): Gemma 270M + the Overcooked adapter, on llmco-lite's
prompt in a kitchen it never saw in training (the paper's layouts are held out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.evals.decisions import DecisionRenderer
from coopgraph.evals.episode_run import run_configured
from coopgraph.evals.overcooked_decisions import KITCHEN_SPEC, layout_decisions
from coopgraph.llm import model_files
from coopgraph.llm.factory import make_lm
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for, run_program

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kitchen_lm():
    if not model_files.is_installed("local-coop-kitchen"):
        pytest.fail("the local-coop-kitchen base model is not installed; run `make setup` (make test does it)")
    return make_lm("local-coop-kitchen", cache=False)


def test_answers_held_out_kitchen_decisions_with_a_listed_action(kitchen_lm) -> None:
    renderer = DecisionRenderer(KITCHEN_SPEC)
    points = [d for d in layout_decisions("cramped_room", ["greedy", "greedy"], renderer=renderer, horizon=80)
              if len(d["options"]) >= 3][:6]
    ctx = renderer.choose_context(AgentResources(env="overcooked", lm=kitchen_lm))
    adapter = adapter_for(ctx)
    agree = 0
    for point in points:
        prediction = run_program(ctx.program, adapter, kitchen_lm, context=dict(point["facts"]),
                                 options=point["options"])
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
    assert payload["steps"] == 40 and payload["llm_usage"]["alice"]["llm_calls"] > 0
    assert payload["invalid_answers"] == 0 and payload["metrics"]["invalid_actions"] == 0
