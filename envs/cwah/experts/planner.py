"""MHP's high-level planner: picks the next subgoal from the C-WAH action list by estimated cost.

A cost-based stand-in for Watch-And-Help's MCTS: deliver when the hands are full or nothing else is
known, otherwise fetch the known goal object that is cheapest to bring to its target, otherwise look
where a common-sense prior says missing objects are likely (value per step of walking). Partners'
held objects and announced intents are subtracted from what is still needed, and places a partner is
exploring are avoided, which is how the planner adapts to the other agent.
"""

from __future__ import annotations

from collections import Counter

from coopgraph.envs.cwah.belief import CWAHBelief, KnownObject
from coopgraph.envs.cwah.estimates import claimed, look_before_put, ranked_looks, steps_for
from coopgraph.envs.protocol import Affordance


class SubgoalPlanner:
    """Chooses one Affordance from the options; deterministic for a given belief.

    `prior_weight` blends the common-sense location prior (1.0) with a uniform one (0.0, as in
    Watch-And-Help's initial belief, where any container is as likely as any other).
    """

    def __init__(self, prior_weight: float = 0.0) -> None:
        self.prior_weight = prior_weight

    def claimed(self, belief: CWAHBelief) -> set[int]:
        """Objects a partner holds, announced or will most likely take first (see `estimates.claimed`)."""
        return claimed(belief)

    def open_needs(self, belief: CWAHBelief, claimed: set[int] | None = None) -> Counter[str]:
        """Per object class: how many more someone still has to find, beyond what is held or claimed."""
        return belief.open_needs() if claimed is None else belief.still_to_fetch(claimed)

    def choose(self, belief: CWAHBelief, options: list[Affordance]) -> Affordance | None:
        claimed = self.claimed(belief)
        needs = self.open_needs(belief, claimed)
        puts = [o for o in options if o.kind == "goput"]
        grabs = [
            o
            for o in options
            if o.kind == "gograb"
            and o.target_id is not None
            and o.target_id not in claimed
            and needs[belief.objects[o.target_id].name] > 0
        ]
        looks = [o for o in options if o.kind in ("gocheck", "goexplore")]
        hands_full = len(belief.holding) >= belief.config.hands
        if puts and (hands_full or not grabs):
            detour = look_before_put(belief, options, needs, self.prior_weight, taken=claimed)
            if detour is not None:
                return detour  # a free hand and something worth a look nearby: look before walking back
            return min(puts, key=lambda o: belief.distance(*self._where(belief, o.target_id)))
        if grabs:
            return min(grabs, key=lambda o: self._fetch_cost(belief, belief.objects[o.target_id]))  # type: ignore[index]
        best = self._best_look(belief, looks, needs)
        return best[1] if best else None

    @staticmethod
    def _where(belief: CWAHBelief, object_id: int | None) -> tuple[tuple[float, float] | None, int | None]:
        obj = belief.objects.get(object_id) if object_id is not None else None
        return (obj.position, obj.room_id) if obj else (None, None)

    def _fetch_cost(self, belief: CWAHBelief, obj: KnownObject) -> float:
        cost = belief.distance_to(obj)
        predicate = belief.predicate_for(obj)
        target = belief.objects.get(predicate.target_id) if predicate else None
        if target is not None and target.room_id is not None and obj.room_id is not None:
            cost += 0.5 * belief.floor.distance(
                obj.position or belief.rooms[obj.room_id].center,
                obj.room_id,
                target.position or belief.rooms[target.room_id].center,
                target.room_id,
            )
        holder = belief.objects.get(obj.inside) if obj.inside is not None else None
        return steps_for(belief, cost) + (1.0 if holder is not None and not holder.is_open else 0.0)

    def _best_look(
        self, belief: CWAHBelief, looks: list[Affordance], needs: Counter[str]
    ) -> tuple[float, Affordance] | None:
        """The look with the best value per step, returned with its step cost."""
        ranked = ranked_looks(belief, looks, needs, self.prior_weight)
        return (ranked[0][1], ranked[0][2]) if ranked else None
