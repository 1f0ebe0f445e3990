"""The kit says what LLM-Co's prompt says: the start-of-episode distances, "blocked by", "inaccessible", the
feasible actions for what is held, and an answer outside the list becomes `wait.`."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.overcooked.affordances import KitchenAffordance, resolve_answer
from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.registry import agent_kit
from coopgraph.testing import check_kit


def start(layout: str) -> dict[str, Any]:
    """Each cook's kit, its belief updated with the first observation."""
    env = envs.make("overcooked", layout=layout)
    observations, _ = env.reset()
    kits = {}
    for agent in env.possible_agents:
        kit = agent_kit("overcooked", env.agent_info(agent))
        kit.belief.update(observations[agent])
        kits[agent] = kit
    return kits


def texts(kit: Any) -> list[str]:
    return [option.text for option in kit.affordances.available(kit.belief)]


def where(belief: OvercookedBelief, mine: bool = True) -> dict[str, str]:
    """`{"o0": "1", "o1": "blocked by Bob", ...}` from the location sentence LLM-Co's prompt shows."""
    sentence = belief.location_text(mine).split(">", 1)[1].lstrip(":")
    facts = {}
    for part in filter(None, (p.strip() for p in sentence.split("."))):
        label, _, rest = part.partition(" is ")
        facts[label] = rest.replace(" units away", "")
    return facts


def test_cramped_room_at_the_start_the_onions_and_the_pot_are_a_step_or_two_away_and_one_is_blocked() -> None:
    kits = start("cramped_room")
    alice, bob = kits["alice"].belief, kits["bob"].belief
    assert where(alice) == {"o0": "1", "o1": "blocked by Bob", "p0": "0", "d0": "2", "c0": "2"}
    assert where(bob) == {"o0": "2", "o1": "0", "p0": "blocked by Alice", "d0": "1", "c0": "1"}
    assert where(alice, mine=False) == where(bob)  # each sees the other's distances as the other does
    assert texts(kits["alice"]) == ["pick up onion from o0.", "pick up onion from o1.", "pick up plate from p0.",
                                    "wait.", "move away."]  # a blocked target stays listed


def test_forced_coordination_the_left_cook_can_only_wait_or_move_away() -> None:
    kits = start("forced_coordination")
    alice, bob = kits["alice"].belief, kits["bob"].belief
    assert where(alice) == {"o0": "inaccessible", "o1": "inaccessible", "p0": "inaccessible", "d0": "2",
                            "c0": "0", "c1": "0", "s0": "0", "s1": "1", "s2": "2"}
    assert where(bob) == {"o0": "1", "o1": "0", "p0": "1", "d0": "inaccessible", "c0": "inaccessible",
                          "c1": "inaccessible", "s0": "1", "s1": "0", "s2": "1"}
    assert texts(kits["alice"]) == ["wait.", "move away."]
    assert texts(kits["bob"]) == ["pick up onion from o0.", "pick up onion from o1.", "pick up plate from p0.",
                                  "wait.", "move away."]
    assert "s0 is empty. s1 is empty. s2 is empty." in alice.progress_text()


def test_gated_delivery_at_the_start_the_serving_spot_is_behind_the_gates() -> None:
    kits = start("no_counter_door")
    alice, bob = kits["alice"].belief, kits["bob"].belief
    assert {k: where(alice)[k] for k in ("d0", "g0", "g1")} == {"d0": "inaccessible", "g0": "0", "g1": "2"}
    assert {k: where(bob)[k] for k in ("g0", "g1")} == {"g0": "blocked by Alice", "g1": "1"}
    assert texts(kits["alice"]) == ["pick up onion from o0.", "pick up onion from o1.", "pick up plate from p0.",
                                    "open g0.", "open g1.", "wait.", "move away."]
    assert "g0 is closed. g1 is closed." in alice.progress_text()


def test_the_state_description_reads_as_llmco_writes_it() -> None:
    belief = start("cramped_room")["alice"].belief
    assert belief.progress_text().splitlines() == [
        "<Inventory>: I am holding nothing. Bob is holding nothing.",
        "<My location information:> o0 is 1 units away. o1 is blocked by Bob. p0 is 0 units away. "
        "d0 is 2 units away. c0 is 2 units away.",
        "<Bob's location information>: o0 is 2 units away. o1 is 0 units away. p0 is blocked by Alice. "
        "d0 is 1 units away. c0 is 1 units away.",
        "<Environment Details>: c0 contains 0 out of 3 onions. c0 is off. soup in c0 is not cooking. "
        "Closest empty kitchen counter k4 is 0 units away.",
    ]
    full = belief.describe(["pick up onion from o0.", "place onion in c0."], ["wait.", "move away."])
    assert full.startswith("action history: pick up onion from o0., place onion in c0..\n<Inventory>")  # LLM-Co's ".."
    assert full.endswith("Available Actions: [wait., move away.].")


def play(env: Any, moves: list[tuple[str, str]]) -> dict[str, Any]:
    observations = {}
    for alice, bob in moves:
        observations, *_ = env.step({"alice": f"[{alice}]", "bob": f"[{bob}]"})
    return observations


def test_what_is_held_decides_the_list_counters_included() -> None:
    env = envs.make("overcooked", layout="cramped_room")
    env.reset()
    kit = agent_kit("overcooked", env.agent_info("alice"))
    # Alice takes an onion at o0 and sets it down on k4 = (0, 2), then takes a plate; Bob takes an onion too
    observations = play(env, [("north", "east"), ("west", "interact"), ("interact", "stay")])
    kit.belief.update(observations["alice"])
    assert texts(kit) == ["place onion in c0.", "place onion on k1.", "wait.", "move away."]  # k1 = (1, 0): 0 away
    observations = play(env, [("south", "stay"), ("west", "stay"), ("interact", "stay")])
    kit.belief.update(observations["alice"])
    assert kit.belief.items == {"k4": "onion"} and kit.belief.partner_holding == "onion"
    assert "k4 is 0 units away. k4 contains onion." in kit.belief.progress_text()
    assert texts(kit)[:4] == ["pick up onion from o0.", "pick up onion from o1.", "pick up plate from p0.",
                              "pick up onion from k4."]
    observations = play(env, [("south", "stay"), ("interact", "stay")])
    kit.belief.update(observations["alice"])
    assert kit.belief.holding == "plate"
    assert texts(kit) == ["load soup on plate from c0.", "place plate on k1.", "wait.", "move away."]


def test_an_answer_outside_the_list_becomes_wait_and_counts_as_invalid() -> None:
    kit = start("forced_coordination")["alice"]
    options = kit.affordances.available(kit.belief)
    chosen, valid = resolve_answer("  Wait. ", options)
    assert chosen.text == "wait." and valid
    for answer in ("pick up onion from o0.", "dance.", ""):
        chosen, valid = resolve_answer(answer, options)
        assert chosen.text == "wait." and not valid
    assert all(isinstance(o, KitchenAffordance) and o.text == o.phrase for o in options)


def test_the_kit_passes_the_conformance_check() -> None:
    report = check_kit("overcooked", episodes=["cramped_room", "no_counter_door", "forced_coordination"], steps=20)
    assert report.capabilities == frozenset({"layout"}) and report.prompt_env == "overcooked"
    assert {"pick", "wait", "move_away"} <= set(report.affordances)
    assert report.primitives and report.primitives <= {"north", "south", "east", "west", "stay", "interact", "wait"}


@pytest.mark.parametrize("layout", ["soup_passing_door", "counter_circuit_o_1order", "asymmetric_advantages"])
def test_every_place_of_the_paper_layouts_is_described(layout: str) -> None:
    belief = start(layout)["alice"].belief
    text = belief.progress_text()
    for letter in ("o", "p", "d", "c", "s", "g"):
        for label in belief.kitchen.ids(letter):
            assert f" {label} is " in text


def test_the_layout_facts_say_who_reaches_what_in_the_states_own_labels() -> None:
    forced = start("forced_coordination")["alice"].belief.layout_facts()
    cooks = {c["name"]: {g["letter"]: g["labels"] for g in c["places"]} for c in forced["cooks"]}
    assert cooks["Alice"]["c"] == ["c0", "c1"] and cooks["Alice"]["d"] == ["d0"] and "o" not in cooks["Alice"]
    assert cooks["Bob"]["o"] == ["o0", "o1"] and cooks["Bob"]["p"] == ["p0"]
    assert forced["divided"] and [g["span"] for g in forced["both"]] == ["s0 to s2"]
    cramped = start("cramped_room")["bob"].belief.layout_facts()
    assert not cramped["divided"] and not cramped["nobody"]
    assert [g["span"] for g in cramped["places"]] == ["o0, o1", "p0", "d0", "c0", "k0 to k8"]
    gated = start("no_counter_door")["alice"].belief.layout_facts()
    assert [g["labels"] for g in gated["nobody"]] == [["d0"]] and gated["gates"] == "g0, g1"
