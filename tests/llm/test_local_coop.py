"""The distilled profiles for real (slow, run in CI): Gemma 270M + each shipped LoRA adapter, on its own prompt."""

from __future__ import annotations

import pytest

from coopgraph.evals.decisions import DecisionRenderer, generate
from coopgraph.llm import model_files
from coopgraph.llm.factory import make_lm
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for, run_program

pytestmark = pytest.mark.slow


#: (profile, the spec whose prompt it learned, how many of the 6 points it must agree on). local-coop agrees on 3
#: here (24.5% over all 249 test-house points; random choice ~1 of 6), local-coop-brief on 6 (100% over 209
#: points; its shortlist puts MHP's option first on all of them, so for it the exact `Answer: <option>` reply
#: and the grammar-free answers below are what show the adapter is applied). The floors leave room for another
#: CPU's rounding to flip an answer while still catching an adapter that is not applied.
PROFILES = [("local-coop", "coela-lite", 2), ("local-coop-brief", "coela-brief", 4)]


@pytest.fixture(scope="module", params=PROFILES, ids=[p[0] for p in PROFILES])
def coop(request):
    profile, spec, floor = request.param
    if not model_files.is_installed(profile):
        pytest.fail(f"the {profile} base model is not installed; run `make setup` (make test does it)")
    return make_lm(profile, cache=False), spec, floor


def test_answers_test_house_decisions_at_once_with_a_listed_action(coop) -> None:
    coop_lm, spec, floor = coop
    points = [d for d in generate("cwah", "test", ["mhp", "mhp"], limit_episodes=1, oracle_restarts=10, spec=spec)
              if len(d["options"]) >= 3][:6]
    renderer = DecisionRenderer(spec)
    ctx = renderer.choose_context(AgentResources(env="cwah", lm=coop_lm))
    adapter = adapter_for(ctx)
    assert (adapter.reasoning_chars, adapter.answer_format) == (0, "text")
    agree = 0
    for point in points:
        prediction = run_program(ctx.program, adapter, coop_lm, context=dict(point["facts"]), options=point["options"])
        assert prediction.valid and prediction.raw == f"Answer: {point['options'][prediction.index]}"
        agree += prediction.index == point["expert_index"]
    assert coop_lm.usage.calls == len(points)
    assert coop_lm.usage.completion_tokens <= 24 * len(points)
    # the lazy grammar: the adapter's own greedy reply is usually an option already (86% in episodes)
    assert coop_lm.usage.grammar_skipped >= len(points) // 2, coop_lm.usage
    assert agree >= floor, f"agreed on {agree} of {len(points)}: is the adapter loaded?"
