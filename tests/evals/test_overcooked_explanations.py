"""LLM-Co's explanation of the greedy cook's choice: the rule's facts as the state shows them, and the partner's
next step."""

from __future__ import annotations

from coopgraph.evals.overcooked_explanations import explain

STATE = ("<Inventory>: I am holding nothing. Bob is holding onion.\n"
         "<My location information:> o0 is 1 units away. p0 is 2 units away. c0 is 2 units away.\n"
         "<Environment Details>: c0 contains 2 out of 3 onions. c0 is off. soup in c0 is not cooking. "
         "c1 contains 3 out of 3 onions. c1 is on. soup in c1 is still cooking.")


def test_each_kind_of_action_gets_the_reason_of_the_rule_that_picks_it() -> None:
    assert explain(STATE, "pick up onion from o0.") == (
        "Pot c0 has 2 of 3 onions, so I fetch an onion from o0; I expect Bob to put the onion in a pot.")
    assert explain(STATE, "pick up plate from p0.").startswith(
        "The soup in c1 is still cooking and will need a plate, so I take one from p0;")
    assert explain(STATE, "wait.").startswith("Bob already carries the onion the pots need")
    assert explain(STATE, "move away.").startswith("Bob needs the place where I stand")


def test_what_is_held_and_the_pot_named_come_from_the_state() -> None:
    holding = STATE.replace("I am holding nothing. Bob is holding onion.", "I am holding plate. Bob is holding "
                            "soup in plate.")
    assert explain(holding, "load soup on plate from c1.") == (
        "I hold a plate and the soup in c1 is still cooking; I expect Bob to serve the soup.")
    assert explain(holding, "open g0.") == "Bob holds a soup behind g0, so I open it; I expect Bob to serve the soup."
    assert explain(holding, "place plate on k4.").startswith("I cannot use the plate now, so I set it down on k4")


def test_an_action_no_rule_names_still_gets_a_sentence() -> None:
    assert explain("", "dance.") == "It is the most useful action open to me; I expect my teammate to carry on."


def test_an_onion_set_down_by_a_full_pot_names_the_full_pot() -> None:
    cooking = STATE.replace("I am holding nothing", "I am holding onion").replace(
        "c0 contains 2 out of 3 onions. c0 is off. soup in c0 is not cooking",
        "c0 contains 3 out of 3 onions. c0 is off. soup in c0 is cooked")
    assert explain(cooking, "place onion on k2.").startswith("Pots c0 and c1 are full, so I set the onion down on k2;")
    assert explain(cooking, "wait.").startswith("Pots c0 and c1 are full and no counter is free, so I wait")
    plate = STATE.replace("I am holding nothing", "I am holding plate").replace(
        "c1 contains 3 out of 3 onions. c1 is on. soup in c1 is still cooking",
        "c1 contains 0 out of 3 onions. c1 is off. soup in c1 is not cooking")
    assert explain(plate, "place plate on k2.").startswith("No soup is cooking yet, so I set the plate down on k2;")
