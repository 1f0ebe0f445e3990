"""A decision point's situation class (what the cook holds, what the kitchen needs of it), read from the belief."""

from __future__ import annotations

import pytest

from coopgraph import envs
from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.decision_situation import decision_situation
from coopgraph.envs.overcooked.observation import Held, OvercookedObservation

COOKING = {"onions": 3, "cooking": True}


def situation_at(layout: str, holding: Held | None, pots: list[dict[str, object]],
                 partner: Held | None = None) -> str:
    """Alice's class at the start of `layout`, holding `holding`, the pots as given, Bob holding `partner`."""
    env = envs.make("overcooked", layout=layout)
    observations, _ = env.reset()
    start = observations["alice"]
    assert isinstance(start, OvercookedObservation)
    cooks = [c.model_copy(update={"holding": partner}) for c in start.partners]
    obs = start.model_copy(update={"holding": holding, "partners": cooks,
                                   "pots": [p.model_copy(update=u) for p, u in zip(start.pots, pots, strict=True)]})
    belief = OvercookedBelief("alice", env.agent_info("alice"))
    belief.update(obs)
    return decision_situation(belief)


@pytest.mark.parametrize("pot, partner, expected", [
    ({"onions": 1}, "onion", "hands empty; pots need onions"),
    ({"onions": 2}, "onion", "hands empty; nothing needed"),  # the partner's onion completes it
    (COOKING, None, "hands empty; no onion needed, a soup needs a plate"),
    (COOKING, "plate", "hands empty; nothing needed"),  # the partner's plate covers it
    ({"onions": 3, "ready": True}, "onion", "hands empty; no onion needed, a soup needs a plate"),
])
def test_empty_hands_count_what_the_partner_holds(pot: dict[str, object], partner: Held | None,
                                                  expected: str) -> None:
    assert situation_at("cramped_room", None, [pot], partner) == expected


def test_an_onion_no_pot_needs_is_set_down_only_where_a_counter_is_in_reach() -> None:
    assert situation_at("cramped_room", "onion", [{"onions": 2}]) == "holding onion; a pot in reach needs it"
    assert situation_at("cramped_room", "onion", [COOKING]) == "holding onion; no pot needs it, a counter free"
    assert (situation_at("no_counter_door", "onion", [COOKING])
            == "holding onion; no pot needs it, nowhere to set it down")


def test_plates_and_soups_are_classed_by_what_is_in_reach() -> None:
    ready = {"onions": 3, "ready": True}
    assert situation_at("cramped_room", "plate", [ready]) == "holding plate; a soup in reach is ready"
    assert situation_at("cramped_room", "plate", [COOKING]) == "holding plate; a soup in reach is cooking"
    assert situation_at("cramped_room", "plate", [{"onions": 1}]) == "holding plate; no soup in reach"
    assert situation_at("cramped_room", "soup in plate", [{}]) == "holding soup; a serving spot in reach"
    assert situation_at("no_counter_door", "soup in plate", [{}]) == "holding soup; no serving spot in reach"
