"""Leaving off a fetch of what the kitchen does not need (`skip_unneeded`, llmco-lite-needed): the world marks it
`surplus` by the greedy cook's own rule, and a planner that fetches the nearest onion is offered a plate instead."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.overcooked.affordances import OvercookedAffordances
from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.needs import kitchen_needs
from coopgraph.envs.overcooked.observation import Held, OvercookedObservation
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance
from coopgraph.graphs.loader import load_spec
from coopgraph.nodes.families.planning import without_unneeded
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import choose, read_state

COOKING = {"onions": 3, "cooking": True}


def belief_at(layout: str, pots: list[dict[str, object]], partner: Held | None = None) -> OvercookedBelief:
    """Alice's belief at the start of `layout`, empty-handed, the pots as given, Bob holding `partner`."""
    env = envs.make("overcooked", layout=layout)
    observations, _ = env.reset()
    start = observations["alice"]
    assert isinstance(start, OvercookedObservation)
    cooks = [c.model_copy(update={"holding": partner}) for c in start.partners]
    obs = start.model_copy(update={"holding": None, "partners": cooks,
                                   "pots": [p.model_copy(update=u) for p, u in zip(start.pots, pots, strict=True)]})
    belief = OvercookedBelief("alice", env.agent_info("alice"))
    belief.update(obs)
    return belief


def surplus_fetches(belief: OvercookedBelief) -> dict[str, bool]:
    return {o.text: o.surplus for o in OvercookedAffordances().available(belief) if o.group == AffordanceGroup.FETCH}


@pytest.mark.parametrize("pot, partner, onion, plate", [
    ({"onions": 1}, None, True, False),
    ({"onions": 2}, "onion", False, False),  # the partner's onion completes the pot
    (COOKING, None, False, True),  # the soup needs a plate, no pot an onion
    (COOKING, "plate", False, False),  # the partner's plate covers it
])
def test_what_the_kitchen_needs_counts_what_the_partner_holds(pot: dict[str, object], partner: Held | None,
                                                              onion: bool, plate: bool) -> None:
    belief = belief_at("cramped_room", [pot], partner)
    needs = kitchen_needs(belief)
    assert (needs.onion, needs.plate, needs.can_cook) == (onion, plate, True)
    marked = surplus_fetches(belief)
    assert marked == {"pick up onion from o0.": not onion, "pick up onion from o1.": not onion,
                      "pick up plate from p0.": not plate}


def test_only_surplus_fetches_are_left_off_and_never_down_to_a_message() -> None:
    onion = Affordance(kind="pick", group=AffordanceGroup.FETCH, target_name="o0", surplus=True)
    plate = Affordance(kind="pick", group=AffordanceGroup.FETCH, target_name="p0")
    aside = Affordance(kind="step_aside", surplus=True)  # not a fetch: never left off by this rule
    assert without_unneeded([onion, plate, aside]) == [plate, aside]
    message = message_affordance("hi")
    assert without_unneeded([message, onion]) == [message, onion]


def test_the_needed_variant_is_the_nohistory_one_with_only_the_param_added() -> None:
    needed, nohistory = (load_spec(name, env="overcooked").spec for name in ("llmco-lite-needed",
                                                                             "llmco-lite-nohistory"))
    assert needed.nodes["list_actions"].params == {"skip_ineffective": True, "skip_unneeded": True}
    assert nohistory.nodes["list_actions"].params == {"skip_ineffective": True}
    assert needed.nodes["choose_action"] == nohistory.nodes["choose_action"]
    assert needed.nodes["retrieve"] == nohistory.nodes["retrieve"]
    assert "small-model variant" in needed.description and "not the published method" in needed.description
    assert not load_spec("llmco", env="overcooked").spec.nodes["list_actions"].params


# ------------------------------------------------------------------------------------- in a kitchen
def _nearest_onion_first(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """Round 8's habit on the gated layouts, scripted: with empty hands it fetches an onion whenever one is listed;
    otherwise it picks as the greedy cook would."""
    kitchen = read_state(str(messages[-1].content))
    if kitchen is None:
        return "Got it!"
    onion = next((o for o in kitchen.options if o.startswith("pick up onion from o")), None)
    if kitchen.holding == "nothing" and onion is not None:
        return f"Action: {onion}"
    return f"Action: {choose(kitchen)[0]}"


def _play(spec: str) -> tuple[Any, list[dict[str, Any]]]:
    tracer = Tracer(None)
    result = run_episode(envs.make("overcooked", layout="no_counter_door"),
                         [GraphAgent(spec, lm=scripted_lm(_nearest_onion_first)), make_partner("greedy")],
                         max_steps=400, seed=0, tracer=tracer)
    return result, [e for e in tracer.events if e["type"] == "left_off" and "unneeded" in e]


def test_a_planner_that_fetches_onions_cooks_on_no_counter_door_only_with_the_unneeded_fetch_left_off() -> None:
    """Under llmco-lite-nohistory it takes a fourth onion while the soup cooks, and with no counter to set it down
    holds it for good; under llmco-lite-needed the onions are off the list then, and it fetches the plate."""
    plain, left_off = _play("llmco-lite-nohistory")
    assert not left_off
    needed, left_off = _play("llmco-lite-needed")
    left = [text for e in left_off for text in e["unneeded"]]
    assert any(text.startswith("pick up onion") for text in left)
    assert all(text.startswith(("pick up onion", "pick up plate")) for text in left)  # fetches only
    assert needed.metrics["score"] > plain.metrics["score"]
    assert needed.metrics["deliveries_by_agent"]["alice"] >= 1
