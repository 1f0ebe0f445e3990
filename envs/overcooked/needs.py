"""What the kitchen still needs fetched by an empty-handed cook: an onion, a plate, both or neither.

One definition for the greedy cook (which fetches only what is needed) and for the feasible-action list (which marks
a fetch nothing needs as `surplus`, so a small-model variant can leave it off). An onion is needed while the pots
that are not cooking still miss more onions than the partner carries; a plate while more soups are cooking or
cooked than the partner carries plates. A cook that reaches no pot also counts what already waits on the shared
counters, since it can only pass things over them.
"""

from __future__ import annotations

from dataclasses import dataclass

from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.mdp import ONIONS_FOR_SOUP


@dataclass(frozen=True)
class KitchenNeeds:
    """Whether an onion or a plate fetched now would be used; `can_cook` says whether a pot is in reach."""

    onion: bool
    plate: bool
    can_cook: bool

    def wants(self, thing: str) -> bool:
        """`wants("onion")`; anything but an onion or a plate (a cooked soup) is always wanted."""
        return {"onion": self.onion, "plate": self.plate}.get(thing, True)


def kitchen_needs(belief: OvercookedBelief) -> KitchenNeeds:
    """What the pots and soups still need beyond what the cooks hold (and, out of a pot's reach, the shared
    counters hold)."""
    held = {"onion": 0, "plate": 0}
    for thing in (belief.holding, belief.partner_holding):
        if thing in held:
            held[thing] += 1
    pots = belief.pots.values()
    soups = sum(1 for p in pots if p.cooking or p.ready)
    onions_missing = sum(ONIONS_FOR_SOUP - p.onions for p in pots if not (p.cooking or p.ready))
    can_cook = any(belief.my_reach(c).reachable for c in belief.pots)
    if not can_cook:
        for label, item in belief.items.items():
            if label[0] == "s" and item in held:
                held[item] += 1
    return KitchenNeeds(onion=onions_missing > held["onion"], plate=soups > held["plate"], can_cook=can_cook)
