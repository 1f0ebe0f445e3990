"""MHP's high-level planner: picks the next subgoal from the C-WAH action list by estimated cost.

A cost-based stand-in for Watch-And-Help's MCTS: deliver when the hands are full or nothing else is
known, otherwise fetch the known goal object that is cheapest to bring to its target, otherwise look
where a common-sense prior says missing objects are likely (value per step of walking). Partners'
held objects and announced intents are subtracted from what is still needed, and places a partner is
exploring are avoided, which is how the planner adapts to the other agent.
"""

from __future__ import annotations

from collections import Counter

from coopgraph.envs.cwah.belief import Belief, KnownObject, PartnerState
from coopgraph.envs.cwah.catalog import location_prior, room_prior
from coopgraph.envs.cwah.layout import euclid
from coopgraph.envs.protocol import Affordance

PARTNER_RECENT_STEPS = 8
LOCAL_EXPLORE_STEPS = 4.0
REVISIT_AFTER_STEPS = 30
MIN_PLACES = 12
VISIBLE_SHARE = 0.5  # entering a room reveals what lies on surfaces, about half of what is there


class SubgoalPlanner:
    """Chooses one Affordance from the options; deterministic for a given belief.

    `prior_weight` blends the common-sense location prior (1.0) with a uniform one (0.0, as in
    Watch-And-Help's initial belief, where any container is as likely as any other).
    """

    def __init__(self, prior_weight: float = 0.0) -> None:
        self.prior_weight = prior_weight

    def claimed(self, belief: Belief) -> set[int]:
        """Objects a partner holds or said it is going for (unless this agent said so first), and objects a
        free-handed partner is nearer to: in this room, or in the room it was seen or heard in lately."""
        taken = {i for partner in belief.partners.values() for i in partner.holding}
        taken |= {o.id for o in belief.objects.values() if o.held_by not in (None, belief.agent_id)}
        taken |= belief.announced_grabs()
        free_handed = [p for p in self._partners_here(belief) if len(p.holding) < belief.config.hands]
        nearby_rooms = belief.free_partner_rooms(PARTNER_RECENT_STEPS)
        for obj in belief.goal_objects():
            if self._partner_closer(belief, free_handed, obj) or obj.room_id in nearby_rooms:
                taken.add(obj.id)  # the partner is right there and will most likely take it
        return taken

    def open_needs(self, belief: Belief, claimed: set[int] | None = None) -> Counter[str]:
        """Per object class: how many more someone still has to find, beyond what is held or claimed."""
        return belief.still_to_fetch(self.claimed(belief) if claimed is None else claimed)

    def _steps(self, belief: Belief, metres: float) -> float:
        return metres / belief.config.walk_speed

    def choose(self, belief: Belief, options: list[Affordance]) -> Affordance | None:
        claimed = self.claimed(belief)
        needs = self.open_needs(belief, claimed)
        puts = [o for o in options if o.kind == "goput"]
        grabs = [
            o
            for o in options
            if o.kind == "gograb"
            and o.target_id not in claimed
            and needs[belief.objects[o.target_id].name] > 0
        ]  # type: ignore[index]
        looks = [o for o in options if o.kind in ("gocheck", "goexplore")]
        hands_full = len(belief.holding) >= belief.config.hands
        if puts and (hands_full or not grabs):
            deliver = min(puts, key=lambda o: belief.distance(*self._where(belief, o.target_id)))
            local = self._best_look(belief, looks, needs)
            detour_budget = max(
                LOCAL_EXPLORE_STEPS,
                0.5 * self._steps(belief, belief.distance(*self._where(belief, deliver.target_id))),
            )
            if not hands_full and local is not None and local[0] <= detour_budget and sum(needs.values()):
                return local[1]  # a free hand and something worth a look nearby: look before walking back
            return deliver
        if grabs:
            return min(grabs, key=lambda o: self._fetch_cost(belief, belief.objects[o.target_id]))  # type: ignore[index]
        best = self._best_look(belief, looks, needs, explore_for_target=not puts and bool(belief.holding))
        return best[1] if best else None

    @staticmethod
    def _where(belief: Belief, object_id: int | None) -> tuple[tuple[float, float] | None, int | None]:
        obj = belief.objects.get(object_id) if object_id is not None else None
        return (obj.position, obj.room_id) if obj else (None, None)

    def _fetch_cost(self, belief: Belief, obj: KnownObject) -> float:
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
        return self._steps(belief, cost) + (1.0 if holder is not None and not holder.is_open else 0.0)

    def _best_look(
        self, belief: Belief, looks: list[Affordance], needs: Counter[str], explore_for_target: bool = False
    ) -> tuple[float, Affordance] | None:
        """The look with the best value per step, returned with its step cost."""
        missing = {name: n for name, n in needs.items() if n > 0}
        busy_rooms, busy_targets = self._partner_focus(belief)
        partners_here = self._partners_here(belief)
        instances = Counter(o.name for o in belief.objects.values() if o.kind == "container")
        places = sum(1 for o in belief.objects.values() if o.kind != "item")
        w = self.prior_weight
        best: tuple[float, float, Affordance] | None = None
        for option in looks:
            if option.kind == "gocheck":
                container = belief.objects[option.target_id]  # type: ignore[index]
                uniform = 1.0 / max(MIN_PLACES, places)
                value = sum(
                    n
                    * (
                        w * location_prior(name).get(container.name, 0.0) / max(1, instances[container.name])
                        + (1 - w) * uniform
                    )
                    for name, n in missing.items()
                )
                steps = self._steps(belief, belief.distance_to(container)) + 1.0
                if option.target_id in busy_targets or self._partner_closer(belief, partners_here, container):
                    value *= 0.1
            else:
                room_name = belief.rooms[option.target_id].name  # type: ignore[index]
                value = VISIBLE_SHARE * sum(
                    n * (w * room_prior(name).get(room_name, 0.0) + (1 - w) / len(belief.rooms))
                    for name, n in missing.items()
                )
                value += len(belief.unseen_targets_usually_in(option.target_id))  # type: ignore[arg-type]
                if option.target_id in belief.explored_rooms:  # look again, the longer ago the better
                    since = belief.step - belief.room_visits.get(option.target_id, 0)
                    value *= 0.2 * min(1.0, since / REVISIT_AFTER_STEPS)
                elif option.target_id in busy_rooms:
                    value *= 0.3
                steps = self._steps(belief, belief.distance(None, option.target_id))
            value = max(value, 1e-3)
            score = steps / value
            if best is None or score < best[0]:
                best = (score, steps, option)
        return (best[1], best[2]) if best else None

    @staticmethod
    def _partners_here(belief: Belief) -> list[PartnerState]:
        """Partners seen this very step (so in this agent's room)."""
        return [
            p for p in belief.partners.values() if p.last_seen_step == belief.step and p.position is not None
        ]

    @staticmethod
    def _partner_closer(belief: Belief, partners: list[PartnerState], obj: KnownObject) -> bool:
        """Whether a partner in the same room is nearer to `obj` (ties go to the smaller agent id): the
        inferred intent that lets two planners in one room split its work instead of doing it twice."""
        if obj.position is None or obj.room_id != belief.room_id:
            return False
        mine = euclid(belief.position, obj.position)
        return any(
            (euclid(p.position, obj.position), p.agent_id) < (mine, belief.agent_id)  # type: ignore[arg-type]
            for p in partners
        )

    @staticmethod
    def _partner_focus(belief: Belief) -> tuple[set[int], set[int]]:
        """Rooms partners are in (seen lately or announced) and containers they said they would check."""
        rooms: set[int] = set()
        targets: set[int] = set()
        for partner in belief.partners.values():
            if partner.room_id is not None and belief.step - partner.last_seen_step <= PARTNER_RECENT_STEPS:
                rooms.add(partner.room_id)
        mine = belief.intent
        for agent_id, intent in belief.partner_intents.items():
            if intent.target_id is None or (
                mine is not None
                and mine.target_id == intent.target_id
                and (mine.step, belief.agent_id) < (intent.step, agent_id)
            ):
                continue  # this agent announced it first: the partner is expected to yield
            if intent.kind == "goexplore":
                rooms.add(intent.target_id)
            elif intent.kind == "gocheck":
                targets.add(intent.target_id)
        return rooms, targets
