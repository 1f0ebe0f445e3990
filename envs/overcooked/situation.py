"""What a cook's directive acts on, as one token, and whether an interact there would change anything.

The token (`Affordance.situation`, `SkillStep.unchanged`) is what the cook holds and the state of the place the
directive names: a pot's onions, whether it cooks and whether its soup is ready (not its tick count, which moves
every tick), what lies on a counter, whether a gate is open; dispensers and serving spots have no state. The
belief (listing actions) and the action manager (ending one) both build it here, from the same observation fields,
so a planner can compare the two: equal tokens mean nothing it acted on has changed since the attempt.
"""

from __future__ import annotations

from coopgraph.envs.overcooked.mdp import ONIONS_FOR_SOUP
from coopgraph.envs.overcooked.observation import GateView, Held, PotView


def situation(holding: Held | None, label: str, pot: PotView | None = None, item: Held | None = None,
              gate: GateView | None = None) -> str:
    """`holding onion; c0: 3 onions, cooking, not ready` (a counter: `k2: plate` or `k2: empty`)."""
    letter = label[:1]
    if letter == "c":
        onions, cooking, ready = (pot.onions, pot.cooking, pot.ready) if pot is not None else (0, False, False)
        place = (f"{label}: {onions} onions, {'cooking' if cooking else 'not cooking'}, "
                 f"{'ready' if ready else 'not ready'}")
    elif letter in ("k", "s"):
        place = f"{label}: {item or 'empty'}"
    elif letter == "g":
        place = f"{label}: {'open' if gate is not None and gate.open else 'closed'}"
    else:
        place = label
    return f"holding {holding or 'nothing'}; {place}"


def interact_changes(holding: Held | None, label: str, pot: PotView | None = None, item: Held | None = None,
                     gate: GateView | None = None) -> bool:
    """Whether an interact facing this place changes anything under the paper's rules (`mdp.py`): a dispenser
    gives to empty hands, a pot takes an onion until it has three and gives its ready soup to a plate, a counter
    swaps between hands and top when exactly one of them holds something, a serving spot takes a soup, a closed
    gate opens for empty hands."""
    letter = label[:1]
    if letter in ("o", "p"):
        return holding is None
    if letter == "c":
        if pot is None:
            return False
        if holding == "onion":
            return pot.onions < ONIONS_FOR_SOUP and not pot.cooking and not pot.ready
        return holding == "plate" and pot.ready
    if letter in ("k", "s"):
        return (holding is None) != (item is None)
    if letter == "d":
        return holding == "soup in plate"
    if letter == "g":
        return holding is None and (gate is None or not gate.open)
    return True
