"""What C-WAH writes on its affordances: the generic fields planners sort and filter on, filled by the world.

A planner node knows no C-WAH action kind, so everything it ranks or leaves off by is computed here, once,
from the belief and the same estimates MHP chooses by: how far each target is (`distance`, walking metres)
and how many steps it takes (`cost`), what a look is expected to find (`value`), which partner will likely do
it first and why (`claims`), whether a fetch is no longer needed (`surplus`), whether a look is worth taking
on the way to a delivery (`detour`), and short notes about rooms.
"""

from __future__ import annotations

import math
from collections import Counter

from coopgraph.envs.cwah import estimates
from coopgraph.envs.cwah.belief import CWAHBelief
from coopgraph.envs.protocol import Affordance, PartnerClaim, Point

#: The kinds a partner may do before this agent: a put is the holder's alone, and a room is not a race.
_CONTESTED = ("gograb", "gocheck")


def target_place(belief: CWAHBelief, option: Affordance) -> tuple[Point | None, int | None]:
    """Where an option takes the agent: a room's centre for exploring, else its target's known place (or its
    room, when only the room is known)."""
    if option.kind == "goexplore":
        return belief.room_center(option.target_id), option.target_id
    obj = belief.objects.get(option.target_id) if option.target_id is not None else None
    if obj is not None and obj.room_id is not None:
        return obj.position, obj.room_id
    return None, option.room_id


def my_distance(belief: CWAHBelief, option: Affordance) -> float:
    """Walking metres from where this agent stands to where an option takes it (inf when that is unknown)."""
    pos, room = target_place(belief, option)
    return belief.walk_distance(belief.position, belief.room_id, pos, room)


def partner_nearer(belief: CWAHBelief, option: Affordance, mine: float) -> str | None:
    """The name of a partner seen this step that stands nearer to a grab's or check's target than this agent
    (`mine` metres); for a grab, only a partner with a free hand (full hands cannot take it first)."""
    if option.kind not in _CONTESTED:
        return None
    pos, room = target_place(belief, option)
    for partner in belief.partners.values():
        if partner.last_seen_step != belief.step or partner.position is None:
            continue
        if option.kind == "gograb" and len(partner.holding) >= belief.hands:
            continue
        if belief.walk_distance(partner.position, partner.room_id, pos, room) < mine:
            return partner.name
    return None


def partner_going(belief: CWAHBelief, option: Affordance, announced: set[int]) -> str | None:
    """The name of a partner that said it goes for this option's target: a grab it announced (`announced`, the
    belief's `announced_grabs`: not if this agent announced it first) or a container it said it would check."""
    if option.kind not in _CONTESTED or option.target_id is None:
        return None
    for agent_id, intent in belief.partner_intents.items():
        if intent.target_id != option.target_id or intent.kind != option.kind or agent_id not in belief.partners:
            continue
        if option.kind == "gocheck" or option.target_id in announced:
            return belief.partners[agent_id].name
    return None


def partner_in_room(belief: CWAHBelief, option: Affordance, rooms: dict[int, str]) -> str | None:
    """The name of a free-handed partner seen or heard lately in the room of a grab's target, when this agent is
    elsewhere (`rooms`: the belief's `free_partner_rooms`). Rooms get no such claim: on the train houses a
    partner's presence did not change how often MHP explores a room (13% against 12%)."""
    if option.kind != "gograb":
        return None
    _, room = target_place(belief, option)
    return rooms.get(room) if room is not None else None


def claims(belief: CWAHBelief, option: Affordance, mine: float, announced: set[int],
           rooms: dict[int, str]) -> tuple[PartnerClaim, ...]:
    """Every reason a partner will likely do this option first, strongest first: it stands nearer, it said it
    goes for it, it was lately in the target's room."""
    found: list[PartnerClaim] = []
    if nearer := partner_nearer(belief, option, mine):
        found.append(PartnerClaim(partner=nearer, reason="nearer"))
    if going := partner_going(belief, option, announced):
        found.append(PartnerClaim(partner=going, reason="announced"))
    if nearby := partner_in_room(belief, option, rooms):
        found.append(PartnerClaim(partner=nearby, reason="nearby"))
    return tuple(found)


def room_notes(belief: CWAHBelief, option: Affordance) -> tuple[str, ...]:
    """For a room to explore: `explored`, or else each goal target not found yet that usually stands in a room
    of its kind (common sense a large model brings to the prompt and a small one lacks)."""
    if option.kind != "goexplore" or option.target_id is None:
        return ()
    if option.target_id in belief.explored_rooms:
        return ("explored",)
    return tuple(f"usual room of the {name}" for name in belief.unseen_targets_usually_in(option.target_id))


def annotate(belief: CWAHBelief, options: list[Affordance]) -> list[Affordance]:
    """`options` with their generic fields filled from the belief as it stands (copies; same order).

    `value` and `cost` of a look are MHP's own (`estimates.look_values`, what is still to fetch after partners'
    claims, the common-sense prior off), so ranking looks by `cost / max(value, 1e-3)` is MHP's ranking;
    `detour` marks each look MHP's `look_before_put` rule would take if it ranked first among `options`.
    """
    taken = estimates.claimed(belief)
    needs: Counter[str] = belief.still_to_fetch(taken)  # what `open_needs` gives, computed once
    looks = {id(option): (value, steps) for value, steps, option in estimates.look_values(belief, options, needs)}
    budget = estimates.detour_budget(belief, options, needs, taken)
    announced = belief.announced_grabs()
    rooms = belief.free_partner_rooms(estimates.PARTNER_RECENT_STEPS)
    annotated = []
    for option in options:
        if option.target_id is None:  # a message: nothing here to measure
            annotated.append(option)
            continue
        metres = my_distance(belief, option)
        finite = math.isfinite(metres)
        update: dict[str, object] = {
            "distance": metres if finite else None,
            "cost": estimates.steps_for(belief, metres) if finite else None,
            "claims": claims(belief, option, metres, announced, rooms),
            "notes": room_notes(belief, option),
        }
        if id(option) in looks:
            value, steps = looks[id(option)]
            update.update(value=value, cost=steps, detour=budget is not None and steps <= budget)
        if option.kind == "gograb":
            update["surplus"] = needs[option.target_name or ""] <= 0
        annotated.append(option.model_copy(update=update))
    return annotated
