"""Scripted Overcooked partners as team members: a greedy cook and a random-legal one (`--team greedy,random`).

Both play through the world's own kit, as an LLM-Co agent does: they pick one of LLM-Co's feasible actions when
the last one has ended, and the action manager runs it (so the second player yields in a stalemate). The greedy
cook fetches onions for the pots that still need them, plates for the soups cooking, loads and delivers, passes
onions and plates over the shared counters when it cannot reach a pot, opens a gate for a partner stuck behind it
with a soup (or for itself when a gate shuts it away from everything), sets down what it cannot use, and with
nothing to do steps aside when the partner finds a place blocked by it. These are
scripted stand-ins for the paper's RL partners, which need ray and TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coopgraph.envs.kit_member import KitMember
from coopgraph.envs.overcooked.affordances import MOVE_AWAY, WAIT, KitchenAffordance
from coopgraph.envs.overcooked.belief import OvercookedBelief

Choice = Callable[[KitchenAffordance], bool]
#: The nearest option passing a test (`GreedyCook.choose`), ties broken by an optional second key (lowest first).
Nearest = Callable[..., "KitchenAffordance | None"]


def soup_unservable(belief: OvercookedBelief, *, mine: bool) -> bool:
    """Whether this cook (`mine`) or the partner holds a soup and reaches no serving spot: behind a shut gate."""
    holding, reach = (belief.holding, belief.my_reach) if mine else (belief.partner_holding, belief.partner_reach)
    return holding == "soup in plate" and not any(reach(d).reachable for d in belief.kitchen.ids("d"))


class KitCook(KitMember):
    """A cook that chooses among LLM-Co's feasible actions with `choose` and runs the choice to its end."""

    name = "cook"
    attempts = 2

    def options(self, belief: Any) -> list[Any]:
        return [o for o in super().options(belief) if isinstance(o, KitchenAffordance)]


class RandomCook(KitCook):
    """Any feasible action, uniformly (seeded)."""

    name = "random"

    def choose(self, belief: OvercookedBelief, options: list[KitchenAffordance]) -> KitchenAffordance:
        return self.rng.choice(options)


class GreedyCook(KitCook):
    """The nearest useful thing to do, by the rules in the module's docstring."""

    name = "greedy"

    def choose(self, belief: OvercookedBelief, options: list[KitchenAffordance]) -> KitchenAffordance:
        def nearest(test: Choice, then: Callable[[KitchenAffordance], float] | None = None) -> KitchenAffordance | None:
            """The nearest option passing `test` (of equally near ones, the lowest `then`, else the first); one
            blocked by the partner is no option for now."""
            found = [o for o in options if o.place is not None and o.distance is not None and test(o)]
            return min(found, key=lambda o: (o.distance or 0.0, then(o) if then else 0.0), default=None)

        wait = self._idle(belief, options)
        held = {"onion": 0, "plate": 0}
        for thing in (belief.holding, belief.partner_holding):
            if thing in held:
                held[thing] += 1
        shared = list(belief.items.items())
        on_shared = {what: sum(1 for label, item in shared if label[0] == "s" and item == what) for what in held}
        pots = belief.pots
        cooked = sum(1 for p in pots.values() if p.cooking or p.ready)
        onions_needed = sum(3 - p.onions for p in pots.values() if not (p.cooking or p.ready))
        can_cook = any(belief.my_reach(c).reachable for c in pots)

        def pot(test: Callable[[Any], bool]) -> Choice:
            return lambda o: o.place in pots and test(pots[o.place])

        def starts(*prefixes: str) -> Choice:
            return lambda o: o.text.startswith(prefixes)

        if belief.holding == "soup in plate":
            return nearest(lambda o: o.kind == "deliver") or nearest(starts("place cooked soup in s")) or wait
        if belief.holding == "onion":
            return (nearest(lambda o: o.kind == "place" and pot(lambda p: p.onions < 3 and not p.cooking
                                                                 and not p.ready)(o))
                    or (None if can_cook else nearest(starts("place onion in s")))
                    or nearest(starts("place onion on k")) or wait)
        if belief.holding == "plate":
            return (nearest(lambda o: o.kind == "load" and pot(lambda p: p.ready)(o))
                    or nearest(lambda o: o.kind == "load" and pot(lambda p: p.cooking)(o))
                    or (None if can_cook else nearest(starts("place plate in s")))
                    or (nearest(starts("place plate on k")) if cooked == 0 and onions_needed > 0 else None)
                    or wait)
        return self._empty_handed(belief, nearest, starts, wait, can_cook, cooked, onions_needed, held, on_shared)

    def _idle(self, belief: OvercookedBelief, options: list[KitchenAffordance]) -> KitchenAffordance:
        """With nothing to do: step aside if a place the partner needs is blocked by this cook, else wait."""
        letters = self._partner_needs(belief)
        in_the_way = any(where.blocked for label, where in belief.partners.items() if label[0] in letters)
        return next(o for o in options if o.text == (MOVE_AWAY if in_the_way else WAIT))

    @staticmethod
    def _partner_needs(belief: OvercookedBelief) -> str:
        """The letters of the places the partner needs for what it holds: pots for an onion or a plate, serving
        spots for a soup, dispensers for empty hands."""
        return {"onion": "c", "plate": "c", "soup in plate": "d"}.get(belief.partner_holding or "", "op")

    @staticmethod
    def _gate(belief: OvercookedBelief, nearest: Nearest, partner_stuck: bool) -> KitchenAffordance | None:
        """The gate to open for a partner stuck with a soup (`partner_stuck`) or for this cook, cut off: the
        nearest."""
        return nearest(lambda o: o.kind == "open")

    def _empty_handed(self, belief: OvercookedBelief, nearest: Nearest,
                      starts: Callable[..., Choice], wait: KitchenAffordance, can_cook: bool, cooked: int,
                      onions_needed: int, held: dict[str, int], on_shared: dict[str, int]) -> KitchenAffordance:
        partner_stuck = soup_unservable(belief, mine=False)
        cut_off = not can_cook and not any(belief.my_reach(x).reachable for x in belief.kitchen.ids("o")
                                           + belief.kitchen.ids("p") + belief.kitchen.ids("s"))
        if partner_stuck or cut_off:
            gate = self._gate(belief, nearest, partner_stuck)
            if gate is not None:
                return gate
        soup = nearest(starts("pick up cooked soup"))
        if soup is not None and (can_cook or any(belief.my_reach(d).reachable for d in belief.kitchen.ids("d"))):
            return soup
        if can_cook:
            if cooked > held["plate"]:
                plate = nearest(starts("pick up plate from", "pick up a plate from"))
                if plate is not None:
                    return plate
            if onions_needed > held["onion"]:
                onion = nearest(starts("pick up onion from"))
                if onion is not None:
                    return onion
            return wait
        if cooked > held["plate"] + on_shared["plate"]:
            plate = nearest(starts("pick up plate from p"))
            if plate is not None:
                return plate
        if onions_needed > held["onion"] + on_shared["onion"]:
            onion = nearest(starts("pick up onion from o"))
            if onion is not None:
                return onion
        return wait


class GateAwareCook(GreedyCook):
    """The greedy cook, except that holding a soup no serving spot in reach takes, it counts the gates as what a
    partner with empty hands needs: that partner's rule is to open one for it. A labeller for the kitchen planner's
    data only (`coopgraph data decisions --labeller greedy-gates`), never the eval's partner: the greedy cook steps
    aside from the dispensers there, and a planner taught its label walks between two cells while the partner's
    way to the gate keeps changing (docs/methods/llmco.md, "Round 15")."""

    name = "greedy-gates"

    @staticmethod
    def _gate(belief: OvercookedBelief, nearest: Nearest, partner_stuck: bool) -> KitchenAffordance | None:
        """For a stuck partner, of the nearest gates the one farthest from it: the partner steps aside into the
        cells near it, so the way to the nearer one is the way it is stepping into."""
        if not partner_stuck:
            return GreedyCook._gate(belief, nearest, partner_stuck)
        return nearest(lambda o: o.kind == "open",
                       then=lambda o: -(belief.partner_reach(o.place or "").distance or 0.0))

    @staticmethod
    def _partner_needs(belief: OvercookedBelief) -> str:
        if soup_unservable(belief, mine=True) and belief.partner_holding is None:
            return "g"
        return GreedyCook._partner_needs(belief)


class LookaheadCook(GateAwareCook):
    """The gate-aware labeller, and holding a soup, it counts the pots as what a partner with empty hands needs: that
    partner's next trip ends at a pot with an onion or a plate. Data only (`--labeller greedy-ahead`): the greedy cook
    waits there on the pot's only free side while its partner walks between a counter and the serving spot's side,
    placing and picking up the same onion, and neither soup nor onion moves again (docs/methods/llmco.md, "Round
    17")."""

    name = "greedy-ahead"

    @staticmethod
    def _partner_needs(belief: OvercookedBelief) -> str:
        needs = GateAwareCook._partner_needs(belief)
        if belief.holding == "soup in plate" and belief.partner_holding is None and needs == "op":
            return "opc"
        return needs
