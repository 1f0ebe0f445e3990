"""A decision point's situation class: what the cook holds and what the kitchen needs of it, as one short token.

The decision data records it beside each point (`situation`), so a training mix can draw evenly across situations
(`evals/distill/mix.py --balance`): a roll-in's common choices (an onion for a pot that needs one) otherwise crowd
out the rare ones a planner must still get right, such as empty hands when no pot needs an onion (a plate, or a
wait) and an onion no pot needs with nowhere to set it down (a wait or a step aside), the two the round-3 kitchen
planner failed on three of the paper's layouts. The classes follow the greedy cook's own branches
(`experts/cooks.py`); they read the belief, never the prompt's text.
"""

from __future__ import annotations

from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.mdp import ONIONS_FOR_SOUP


def decision_situation(belief: OvercookedBelief) -> str:
    """`hands empty; pots need onions`, `holding onion; no pot needs it, nowhere to set it down`, ..."""
    held = belief.holding
    if held is None:
        return f"hands empty; {_empty_handed(belief)}"
    if held == "onion":
        return f"holding onion; {_holding_onion(belief)}"
    if held == "plate":
        return f"holding plate; {_holding_plate(belief)}"
    serving = any(belief.my_reach(d).reachable for d in belief.kitchen.ids("d"))
    return f"holding soup; {'a serving spot in reach' if serving else 'no serving spot in reach'}"


def _empty_handed(belief: OvercookedBelief) -> str:
    """Whether the pots still need onions beyond the partner's, else whether a soup still needs a plate."""
    pots = belief.pots.values()
    onions_needed = sum(ONIONS_FOR_SOUP - p.onions for p in pots if not (p.cooking or p.ready))
    if onions_needed > (belief.partner_holding == "onion"):
        return "pots need onions"
    soups = sum(1 for p in pots if p.cooking or p.ready)
    if soups > (belief.partner_holding == "plate"):
        return "no onion needed, a soup needs a plate"
    return "nothing needed"


def _holding_onion(belief: OvercookedBelief) -> str:
    """Whether a pot in reach takes the onion, else whether a counter in reach is free to set it down."""
    if any(belief.my_reach(label).reachable and pot.onions < ONIONS_FOR_SOUP and not (pot.cooking or pot.ready)
           for label, pot in belief.pots.items()):
        return "a pot in reach needs it"
    free = [label for letter in ("k", "s") for label in belief.kitchen.ids(letter)
            if label not in belief.items and belief.my_reach(label).reachable]
    return "no pot needs it, a counter free" if free else "no pot needs it, nowhere to set it down"


def _holding_plate(belief: OvercookedBelief) -> str:
    in_reach = [pot for label, pot in belief.pots.items() if belief.my_reach(label).reachable]
    if any(pot.ready for pot in in_reach):
        return "a soup in reach is ready"
    if any(pot.cooking for pot in in_reach):
        return "a soup in reach is cooking"
    return "no soup in reach"
