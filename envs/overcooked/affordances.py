"""LLM-Co's feasible actions for one cook, as annotated affordances whose text is LLM-Co's phrase.

What is offered depends on what the cook holds (LLM-Co's `_get_available_actions`): empty-handed, a pickup from
every reachable dispenser, filled counter and shared counter, and `open gX.` for every reachable closed gate;
holding an onion, every reachable pot, the closest empty counter and every empty shared counter; a plate, every
reachable pot (readiness is checked on arrival), the closest empty counter, every empty shared counter; a soup,
every reachable serving spot and the closest empty counter; always `wait.` and `move away.`. "Reachable" means not
inaccessible: a target blocked by the partner stays listed. One wording per action (LLM-Co's code strings); the
skill book executes only the verb and the letter+digit place.
"""

from __future__ import annotations

from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance

WAIT, MOVE_AWAY = "wait.", "move away."
#: Layouts where LLM-Co offers to put a cooked soup on a shared counter.
SOUP_PASSING_LAYOUTS = frozenset({"soup_passing"})
_PICK_FROM_COUNTER = {"onion": "pick up onion from {}.", "plate": "pick up plate from {}.",
                      "soup in plate": "pick up cooked soup from {}."}
_PICK_FROM_SHARED = {"onion": "pick up onion from {}.", "plate": "pick up a plate from {}.",
                     "soup in plate": "pick up cooked soup from {}."}


class KitchenAffordance(Affordance):
    """An affordance whose text is LLM-Co's phrase (`pick up onion from o0.`), so histories read as LLM-Co's.

    `place` is the letter+digit label it acts on (None for `wait.` and `move away.`), also given as the generic
    `target_name` so nodes can tell an action on a place from one on none; `kind` is the verb the skill book acts by
    (`pick`, `place`, `load`, `deliver`, `open`, `wait`, `move_away`).
    """

    phrase: str
    place: str | None = None

    @property
    def text(self) -> str:
        return self.phrase


def _option(belief: OvercookedBelief, phrase: str, kind: str, group: AffordanceGroup, place: str | None = None,
            note: str = "") -> KitchenAffordance:
    notes: tuple[str, ...] = (note,) if note else ()
    distance: float | None = None
    if place is not None:
        where = belief.my_reach(place)
        distance = None if where.distance is None else float(where.distance)
        if where.blocked:
            notes += (f"blocked by {belief.partner_name}",)
    return KitchenAffordance(phrase=phrase, kind=kind, group=group, place=place, target_name=place, distance=distance,
                             cost=None if place is not None and distance is None else (distance or 0.0) + 1.0,
                             notes=notes, situation=None if place is None else belief.situation(place))


def _reachable(belief: OvercookedBelief, letter: str) -> list[str]:
    return [label for label in belief.kitchen.ids(letter) if belief.my_reach(label).reachable]


class OvercookedAffordances:
    """Implements the `Affordances` protocol for Overcooked: LLM-Co's feasible-action list, in its order."""

    def available(self, belief: OvercookedBelief, message: str | None = None) -> list[Affordance]:
        options: list[Affordance] = [message_affordance(message)] if message else []
        held = belief.holding
        if held is None:
            options += self._empty_handed(belief)
        elif held == "onion":
            options += self._holding(belief, "onion")
        elif held == "plate":
            options += self._holding(belief, "plate")
        elif held == "soup in plate":
            options += self._holding_soup(belief)
        options.append(_option(belief, WAIT, "wait", AffordanceGroup.WAIT))
        options.append(_option(belief, MOVE_AWAY, "move_away", AffordanceGroup.OTHER,
                               note="one step away from the partner, to clear the way"))
        return options

    @staticmethod
    def _empty_handed(belief: OvercookedBelief) -> list[KitchenAffordance]:
        fetch = AffordanceGroup.FETCH
        options = [_option(belief, f"pick up onion from {o}.", "pick", fetch, o) for o in _reachable(belief, "o")]
        options += [_option(belief, f"pick up plate from {p}.", "pick", fetch, p) for p in _reachable(belief, "p")]
        for k in _reachable(belief, "k"):
            if k in belief.items:
                options.append(_option(belief, _PICK_FROM_COUNTER[belief.items[k]].format(k), "pick", fetch, k))
        for s in _reachable(belief, "s"):
            if s in belief.items:
                options.append(_option(belief, _PICK_FROM_SHARED[belief.items[s]].format(s), "pick", fetch, s))
        options += [_option(belief, f"open {g}.", "open", AffordanceGroup.OTHER, g,
                            note="opens the gate: it stays open about ten ticks, and while someone stands in it")
                    for g in _reachable(belief, "g") if not belief.gates[g].open]
        return options

    @staticmethod
    def _closest_counter(belief: OvercookedBelief, what: str) -> list[KitchenAffordance]:
        closest = belief.closest_empty_counter()
        if closest is None:
            return []
        return [_option(belief, f"place {what} on {closest[0]}.", "place", AffordanceGroup.OTHER, closest[0],
                        note="sets it down on the closest empty counter, to free the hands")]

    @staticmethod
    def _empty_shared(belief: OvercookedBelief) -> list[str]:
        return [s for s in _reachable(belief, "s") if s not in belief.items]

    def _holding(self, belief: OvercookedBelief, thing: str) -> list[KitchenAffordance]:
        pots = _reachable(belief, "c")
        if thing == "onion":
            options = [_option(belief, f"place onion in {c}.", "place", AffordanceGroup.DELIVER, c) for c in pots]
        else:
            options = [_option(belief, f"load soup on plate from {c}.", "load", AffordanceGroup.FETCH, c,
                               note="takes the soup if it is cooked, else waits there") for c in pots]
        options += self._closest_counter(belief, thing)
        options += [_option(belief, f"place {thing} in {s}.", "place", AffordanceGroup.OTHER, s,
                            note="puts it on a counter both cooks can reach") for s in self._empty_shared(belief)]
        return options

    def _holding_soup(self, belief: OvercookedBelief) -> list[KitchenAffordance]:
        options = [_option(belief, f"place soup for delivery in {d}.", "deliver", AffordanceGroup.DELIVER, d)
                   for d in _reachable(belief, "d")]
        options += self._closest_counter(belief, "plate")  # LLM-Co's wording for setting a soup down
        if belief.kitchen.layout.rpartition("/")[2] in SOUP_PASSING_LAYOUTS:
            options += [_option(belief, f"place cooked soup in {s}.", "place", AffordanceGroup.OTHER, s,
                                note="puts it on a counter both cooks can reach") for s in self._empty_shared(belief)]
        return options


def resolve_answer(answer: str, options: list[Affordance]) -> tuple[Affordance, bool]:
    """LLM-Co's paper-era reading of a reply's action: an exact match (trimmed, lower case) of a listed phrase, or
    `wait.` for this tick, marked invalid (False)."""
    wanted = answer.strip().lower()
    for option in options:
        if option.text == wanted:
            return option, True
    fallback = next((o for o in options if o.text == WAIT), None)
    return (fallback if fallback is not None else KitchenAffordance(phrase=WAIT, kind="wait",
                                                                    group=AffordanceGroup.WAIT)), False
