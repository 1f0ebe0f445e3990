"""Estimates a C-WAH planner chooses by: what partners will see to, and what each look is worth per step.

MHP's planner picks its looks with these numbers, and the C-WAH affordances carry the same numbers to any planner
(`annotate`: a look's `value` and `cost`, its `detour` flag, the objects partners will see to), so a small LLM
planner's shortlist ranks looks as MHP does (REVECA's relevance and proximity in one figure). They live with the
belief they read rather than inside one planner.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from coopgraph.envs.cwah.catalog import location_prior, room_prior
from coopgraph.envs.cwah.layout import euclid
from coopgraph.envs.protocol import Affordance

if TYPE_CHECKING:
    from coopgraph.envs.cwah.belief import CWAHBelief, KnownObject, PartnerState

PARTNER_RECENT_STEPS = 8
LOCAL_EXPLORE_STEPS = 4.0
REVISIT_AFTER_STEPS = 30
MIN_PLACES = 12
VISIBLE_SHARE = 0.5  # entering a room reveals what lies on surfaces, about half of what is there


def steps_for(belief: CWAHBelief, metres: float) -> float:
    return metres / belief.config.walk_speed


def partners_here(belief: CWAHBelief) -> list[PartnerState]:
    """Partners seen this very step (so in this agent's room)."""
    return [p for p in belief.partners.values() if p.last_seen_step == belief.step and p.position is not None]


def partner_closer(belief: CWAHBelief, partners: list[PartnerState], obj: KnownObject) -> bool:
    """Whether a partner in the same room is nearer to `obj` (ties go to the smaller agent id): the inferred
    intent that lets two planners in one room split its work instead of doing it twice."""
    if obj.position is None or obj.room_id != belief.room_id:
        return False
    mine = euclid(belief.position, obj.position)
    return any(
        (euclid(p.position, obj.position), p.agent_id) < (mine, belief.agent_id)  # type: ignore[arg-type]
        for p in partners
    )


def partner_focus(belief: CWAHBelief) -> tuple[set[int], set[int]]:
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


def _announced_class(belief: CWAHBelief) -> str | None:
    """The class of the object this agent said it goes to grab, while that grab is still to do."""
    mine = belief.intent
    obj = belief.objects.get(mine.target_id) if mine is not None and mine.kind == "gograb" else None  # type: ignore[arg-type]
    if obj is None or obj.held_by is not None or belief.predicate_for(obj) is None:
        return None
    return obj.name


def claimed(belief: CWAHBelief) -> set[int]:
    """Objects a partner holds or said it is going for (unless this agent said so first), and objects a
    free-handed partner is nearer to: in this room, or in the room it was seen or heard in lately."""
    taken = {i for partner in belief.partners.values() for i in partner.holding}
    taken |= {o.id for o in belief.objects.values() if o.held_by not in (None, belief.agent_id)}
    taken |= belief.announced_grabs()
    free_handed = [p for p in partners_here(belief) if len(p.holding) < belief.config.hands]
    nearby_rooms = belief.free_partner_rooms(PARTNER_RECENT_STEPS)
    mine = _announced_class(belief)
    for obj in belief.goal_objects():
        if obj.name == mine:
            continue  # partners heard I go for one of these and count it: none will take this one on that account
        if partner_closer(belief, free_handed, obj) or obj.room_id in nearby_rooms:
            taken.add(obj.id)  # the partner is right there and will most likely take it
    return taken


def _check_value(container: KnownObject, missing: dict[str, int], prior_weight: float, instances: int,
                 places: int) -> float:
    """Expected needed objects found by opening one container: a uniform share of the `places` known, blended
    with the common-sense prior split over the `instances` of containers of that name."""
    uniform = 1.0 / max(MIN_PLACES, places)
    return sum(
        n * (prior_weight * location_prior(name).get(container.name, 0.0) / max(1, instances)
             + (1 - prior_weight) * uniform)
        for name, n in missing.items()
    )


def _explore_value(belief: CWAHBelief, option: Affordance, missing: dict[str, int], prior_weight: float) -> float:
    """Expected needed objects seen on entering a room, plus one for each goal target usually kept there."""
    room_name = belief.rooms[option.target_id].name  # type: ignore[index]
    value = VISIBLE_SHARE * sum(
        n * (prior_weight * room_prior(name).get(room_name, 0.0) + (1 - prior_weight) / len(belief.rooms))
        for name, n in missing.items()
    )
    return value + len(belief.unseen_targets_usually_in(option.target_id))  # type: ignore[arg-type]


def look_values(
    belief: CWAHBelief, looks: list[Affordance], needs: Counter[str], prior_weight: float = 0.0
) -> list[tuple[float, float, Affordance]]:
    """The checks and explores among `looks` as (expected needed objects found, steps, option), in the given
    order. Places a partner is busy with, and rooms explored lately, are worth less."""
    missing = {name: n for name, n in needs.items() if n > 0}
    busy_rooms, busy_targets = partner_focus(belief)
    here = partners_here(belief)
    instances = Counter(o.name for o in belief.objects.values() if o.kind == "container")
    places = sum(1 for o in belief.objects.values() if o.kind != "item")
    rows: list[tuple[float, float, Affordance]] = []
    for option in looks:
        if option.kind == "gocheck":
            container = belief.objects[option.target_id]  # type: ignore[index]
            value = _check_value(container, missing, prior_weight, instances[container.name], places)
            steps = steps_for(belief, belief.distance_to(container)) + 1.0
            if option.target_id in busy_targets or partner_closer(belief, here, container):
                value *= 0.1
        elif option.kind == "goexplore":
            value = _explore_value(belief, option, missing, prior_weight)
            if option.target_id in belief.explored_rooms:  # look again, the longer ago the better
                since = belief.step - belief.room_visits.get(option.target_id, 0)  # type: ignore[arg-type]
                value *= 0.2 * min(1.0, since / REVISIT_AFTER_STEPS)
            elif option.target_id in busy_rooms:
                value *= 0.3
            steps = steps_for(belief, belief.distance(None, option.target_id))
        else:
            continue
        rows.append((value, steps, option))
    return rows


def steps_per_find(steps: float, value: float) -> float:
    """What a look costs per expected find: the figure looks are ranked by (lower is better)."""
    return steps / max(value, 1e-3)


def ranked_looks(
    belief: CWAHBelief, looks: list[Affordance], needs: Counter[str], prior_weight: float = 0.0
) -> list[tuple[float, float, Affordance]]:
    """The checks and explores among `looks` as (steps per expected find, steps, option), best first (ties
    keep the given order); see `look_values`."""
    rows = [(steps_per_find(steps, value), steps, option)
            for value, steps, option in look_values(belief, looks, needs, prior_weight)]
    rows.sort(key=lambda row: row[0])
    return rows


def detour_budget(
    belief: CWAHBelief, options: list[Affordance], needs: Counter[str], taken: set[int] | None = None,
) -> float | None:
    """The most steps a look may cost to be taken on the way to a delivery, or None when no look is: a hand
    must be free, something still needed, no needed object there to grab instead (a fetch comes before a look),
    and then a look may cost half the walk to the nearest put's target (at least 4 steps). `taken` is
    `claimed(belief)` when the caller already has it."""
    puts = [o for o in options if o.kind == "goput" and o.target_id in belief.objects]
    if not puts or len(belief.holding) >= belief.config.hands or not sum(n for n in needs.values() if n > 0):
        return None
    grabs = [o for o in options if o.kind == "gograb" and needs[belief.objects[o.target_id].name] > 0]  # type: ignore[index]
    if grabs and {o.target_id for o in grabs} - (claimed(belief) if taken is None else taken):
        return None
    walk = min(belief.distance_to(belief.objects[o.target_id]) for o in puts)  # type: ignore[index]
    return max(LOCAL_EXPLORE_STEPS, 0.5 * steps_for(belief, walk))


def look_before_put(
    belief: CWAHBelief, options: list[Affordance], needs: Counter[str], prior_weight: float = 0.0,
    taken: set[int] | None = None,
) -> Affordance | None:
    """The best-ranked look, when it is worth taking on the way to a delivery: it costs no more than
    `detour_budget` allows."""
    budget = detour_budget(belief, options, needs, taken)
    if budget is None:
        return None
    ranked = ranked_looks(belief, options, needs, prior_weight)
    return ranked[0][2] if ranked and ranked[0][1] <= budget else None
