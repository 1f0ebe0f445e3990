"""The scripted cooks score on the paper's seven layouts; the scores are pinned so a rule change shows."""

from __future__ import annotations

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.runtime.episode_loop import run_episode

#: Greedy + greedy over 400 ticks (llmco.md §5's seven layouts: Table 1's five, then Locked and Gated Delivery).
GREEDY_SCORES = {"cramped_room": 200, "asymmetric_advantages": 280, "coordination_ring": 180,
                 "forced_coordination": 260, "counter_circuit_o_1order": 200, "soup_passing_door": 100,
                 "no_counter_door": 180}


@pytest.mark.parametrize(("layout", "score"), GREEDY_SCORES.items())
def test_two_greedy_cooks_score_on_every_paper_layout(layout: str, score: int) -> None:
    env = envs.make("overcooked", layout=layout, horizon=400)
    result = run_episode(env, [make_partner("greedy"), make_partner("greedy")])
    assert result.metrics["score"] == score and result.success, (layout, result.metrics)
    assert result.metrics["invalid_actions"] == 0


#: Greedy + greedy over 400 ticks on coopgraph's own training kitchens (`layouts/coopgraph/`): each must cook, or
#: the kitchen planner's data from it would teach waiting.
OWN_KITCHEN_SCORES = {"passing_columns": 260, "passing_columns_swapped": 260, "passing_rows": 220,
                      "passing_rows_swapped": 220, "passing_narrow": 180, "passing_narrow_swapped": 200,
                      "island_ring": 200, "island_ring_long": 240, "gated_delivery": 160, "gated_delivery_wide": 180,
                      "locked_halves": 160, "locked_halves_swapped": 160, "bare_room": 180, "bare_room_swapped": 180}


def test_two_greedy_cooks_score_on_every_training_kitchen_of_coopgraphs_own() -> None:
    scores = {}
    for layout in OWN_KITCHEN_SCORES:
        env = envs.make("overcooked", layout=f"coopgraph/{layout}", horizon=400)
        scores[layout] = run_episode(env, [make_partner("greedy"), make_partner("greedy")]).metrics["score"]
    assert scores == OWN_KITCHEN_SCORES


def test_on_forced_coordination_the_soups_pass_over_the_shared_counters() -> None:
    env = envs.make("overcooked", layout="forced_coordination", horizon=400)
    result = run_episode(env, [make_partner("greedy"), make_partner("greedy")])
    assert result.per_agent["alice"]["deliveries"] > 0 and result.per_agent["bob"]["deliveries"] == 0


def test_a_random_legal_partner_plays_only_listed_actions_and_the_greedy_cook_still_scores() -> None:
    env = envs.make("overcooked", layout="cramped_room", horizon=400)
    result = run_episode(env, [make_partner("greedy"), make_partner("random")], seed=0)
    assert result.metrics["score"] > 0 and result.metrics["invalid_actions"] == 0
    again = run_episode(envs.make("overcooked", layout="cramped_room", horizon=400),
                        [make_partner("greedy"), make_partner("random")], seed=0)
    assert again.metrics == result.metrics  # seeded


@pytest.mark.parametrize("layout", ["cramped_room", "no_counter_door", "soup_passing_door"])
def test_the_gate_aware_labeller_plays_as_the_greedy_cook_where_no_partner_goes_for_a_gate(layout: str) -> None:
    """`GateAwareCook` changes one step-aside rule (docs/methods/llmco.md, "Round 15"); beside the greedy cook it
    cooks the same episode, so its labels differ only in the states a planner leads it into."""
    from coopgraph.envs.overcooked.experts.cooks import GateAwareCook, LookaheadCook

    def play(first: object) -> dict[str, object]:
        return run_episode(envs.make("overcooked", layout=layout, horizon=400), [first, make_partner("greedy")]).metrics

    greedy = play(make_partner("greedy"))
    assert play(GateAwareCook()) == greedy and play(LookaheadCook()) == greedy
