"""Agent histories (REVECA's self- and collaborator-information): what I did, where partners were and may be.

A partner is seen only now and then. Between two sightings its unseen moves are interpolated along the
walking path from one place to the other; after the last sighting it is extrapolated towards the subgoal it
announced (or assumed to stay put). Validation asks these histories whether a partner could have reached an
object since it was seen, and the planner uses the current estimate for "who is closer".

Geometry is the world's (the `spatial` capability: C-WAH walks through doors), places are rooms (`rooms`),
and partners and their announced subgoals come from `partners`, so nothing here depends on a concrete world.
The node that keeps these histories each step, `partners.track`, is in partners.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

from coopgraph.envs.capabilities import Belief, Objects, Partners, Rooms, Spatial
from coopgraph.envs.protocol import STRICT_LABEL_PATTERN, AffordanceGroup, HouseObservation, Point, PrimitiveAction
from coopgraph.nodes.reveca_notes import RevecaNotes, Sighting, Touch

#: "I am in the <kitchen> (5)", as REVECA's start-up line and partners' reports say where they are.
_ROOM_SAID = re.compile(rf"\bI(?: am|'m) (?:now )?in the {STRICT_LABEL_PATTERN}", re.IGNORECASE)


class PartnerWorld(Belief, Spatial, Rooms, Objects, Partners, Protocol):
    """What the partner histories read of a belief: the `spatial`, `rooms`, `objects` and `partners`
    capabilities together."""


# ----------------------------------------------------------------------------- geometry
def room_center(belief: Any, room_id: int | None) -> Point | None:
    rooms = cast(Rooms, belief).rooms
    return rooms[room_id].center if room_id is not None and room_id in rooms else None


def walk_distance(belief: Any, a: Point | None, room_a: int | None, b: Point | None, room_b: int | None) -> float:
    """Walking distance between two places (room centres stand in for unknown points); inf when unknown."""
    return cast(Spatial, belief).walk_distance(a, room_a, b, room_b)


def point_along(belief: Any, a: Point, room_a: int | None, b: Point, room_b: int | None,
                metres: float) -> tuple[Point, int | None]:
    """Where a walker from a to b is after `metres` (following the world's paths)."""
    return cast(Spatial, belief).point_along(a, room_a, b, room_b, metres)


def walk_speed(belief: Any) -> float:
    """Distance walked per unit of time, from the world's own settings carried by the belief."""
    return cast(Spatial, belief).walk_speed


def reach(belief: Any) -> float:
    return cast(Spatial, belief).reach


# ----------------------------------------------------------------------------- estimates
@dataclass
class Estimate:
    """A partner's believed whereabouts at one step and how it was obtained."""

    position: Point | None
    room_id: int | None
    source: Literal["seen", "interpolated", "extrapolated", "told", "unknown"]
    last_seen: int | None = None


def _intent_place(belief: PartnerWorld, agent_id: str) -> tuple[Point | None, int | None]:
    """Where the subgoal a partner announced takes it: its target object's place, or the room it named."""
    intent = belief.partner_intents.get(agent_id)
    if intent is None or intent.target_id is None:
        return None, None
    obj = belief.objects.get(intent.target_id)
    if obj is not None and obj.room_id is not None:
        return obj.position, obj.room_id
    if intent.target_id in belief.rooms:
        return room_center(belief, intent.target_id), intent.target_id
    return None, None


def estimate(notes: RevecaNotes, belief: Any, agent_id: str, step: int) -> Estimate:
    """Where `agent_id` was (or is) at `step`: seen, interpolated between sightings, or extrapolated."""
    track = notes.tracks.get(agent_id) or []
    before = [s for s in track if s.step <= step]
    after = [s for s in track if s.step > step]
    if not before:
        return Estimate(None, None, "unknown")
    last = before[-1]
    start = last.position or room_center(belief, last.room_id)
    if last.step == step or start is None:
        return Estimate(start, last.room_id, "seen" if last.source == "seen" else "told", last.step)
    if after:  # between two sightings: part-way along the walk from one to the next
        nxt = after[0]
        end = nxt.position or room_center(belief, nxt.room_id)
        if end is not None:
            total = walk_distance(belief, start, last.room_id, end, nxt.room_id)
            fraction = (step - last.step) / max(1, nxt.step - last.step)
            if math.isfinite(total):
                pos, room = point_along(belief, start, last.room_id, end, nxt.room_id, total * fraction)
                return Estimate(pos, room, "interpolated", last.step)
    goal_pos, goal_room = _intent_place(cast(PartnerWorld, belief), agent_id)
    if goal_pos is None and goal_room is None:
        return Estimate(start, last.room_id, "extrapolated", last.step)
    target = goal_pos or room_center(belief, goal_room)
    assert target is not None
    moved = walk_speed(belief) * (step - last.step)
    pos, room = point_along(belief, start, last.room_id, target, goal_room, moved)
    return Estimate(pos, room, "extrapolated", last.step)


def could_reach(notes: RevecaNotes, belief: Any, agent_id: str, place: tuple[Point | None, int | None],
                since: int, now: int) -> tuple[bool, float]:
    """Could the partner have been within reach of `place` at some step in (since, now]?

    Returns (possible, slack): slack is the spare walking in metres (larger: easier; inf: nothing known).
    Each gap between two known positions is checked: from the earlier one to the place and on to the later
    one must fit in the steps between them. Before the first sighting only the way back has to fit, after
    the last one only the way there.
    """
    if now <= since:
        return False, -math.inf
    track = [s for s in notes.tracks.get(agent_id) or [] if s.position or s.room_id is not None]
    inside = [s for s in track if since < s.step <= now]
    prior = [s for s in track if s.step <= since][-1:]
    if not prior and not inside:
        return True, math.inf  # never seen nor heard of: anything is possible
    anchors: list[Sighting | None] = [prior[0] if prior else None, *inside, None]
    speed, arm = walk_speed(belief), reach(belief)
    pos, room = place
    best = -math.inf
    for first, second in zip(anchors, anchors[1:], strict=False):
        if first is None and second is None:
            continue
        start = since if first is None else first.step
        end = now if second is None else second.step
        there = 0.0 if first is None else walk_distance(belief, first.position, first.room_id, pos, room)
        back = 0.0 if second is None else walk_distance(belief, pos, room, second.position, second.room_id)
        best = max(best, speed * (end - start) + arm - there - back)
    return best >= 0, best


# ----------------------------------------------------------------------------- recording
def record_self(notes: RevecaNotes, obs: HouseObservation) -> None:
    """Log this agent's own successful interactions from the action the environment just applied."""
    if not obs.last_action or not obs.last_action_ok:
        return
    try:
        action = PrimitiveAction.parse(obs.last_action)
    except ValueError:
        return
    group = obs.last_action_group
    if group == AffordanceGroup.FETCH and action.target_id is not None:
        label = f"<{action.target_name}> ({action.target_id})"
        notes.touched[action.target_id] = Touch(obs.time, "took", label)
    elif group == AffordanceGroup.INSPECT and action.target_id is not None:
        notes.touched[action.target_id] = Touch(obs.time, "checked", f"<{action.target_name}> ({action.target_id})")
    elif group == AffordanceGroup.DELIVER and action.object_id is not None:
        label = f"<{action.object_name}> ({action.object_id})"
        where = f"<{action.target_name}> ({action.target_id})"
        notes.touched[action.object_id] = Touch(obs.time, "put", label, where)
        relation = "in" if _is_container(obs, action.target_id) else "on"
        notes.unannounced_puts.append(f"{label} {relation} {where}")


def _is_container(obs: HouseObservation, object_id: int | None) -> bool:
    seen = obs.visible(object_id) if object_id is not None else None
    return seen is not None and seen.kind == "container"


def record_partners(notes: RevecaNotes, belief: Any, obs: HouseObservation) -> None:
    """Append this step's sightings, and rooms partners said they are in, to their tracks."""
    for partner in obs.partners:
        _append(notes, partner.agent_id, Sighting(obs.time, partner.position, partner.room_id, "seen"))
    rooms = cast(Rooms, belief).rooms
    for message in obs.messages:
        if message.sender == obs.agent_id or any(p.agent_id == message.sender for p in obs.partners):
            continue
        said = _ROOM_SAID.search(message.text)
        if said and int(said.group(2)) in rooms:
            room_id = int(said.group(2))
            _append(notes, message.sender, Sighting(message.step, None, room_id, "told"))


def _append(notes: RevecaNotes, agent_id: str, sighting: Sighting) -> None:
    track = notes.tracks.setdefault(agent_id, [])
    if track and track[-1].step >= sighting.step:
        if track[-1].step == sighting.step and sighting.source == "seen":
            track[-1] = sighting  # seeing beats being told, at the same step
        return
    track.append(sighting)


# ----------------------------------------------------------------------------- prompt text
def _labels(belief: Objects, ids: Sequence[int]) -> str:
    objects = belief.objects
    return ", ".join(objects[i].label for i in ids if i in objects) or "nothing"


def describe_partner(notes: RevecaNotes, belief: Any, agent_id: str, step: int, spatial: bool = True) -> str:
    """One prompt line: where the partner is (seen, or estimated from its last sighting), what it holds and
    what it said it would do."""
    world = cast(PartnerWorld, belief)
    partner = world.partners[agent_id]
    guess = estimate(notes, belief, agent_id, step)
    room_name = world.room_name
    if guess.source == "unknown":
        text = f"{partner.name}: not seen yet"
    elif guess.source == "seen":
        text = f"{partner.name}: here in the {room_name(guess.room_id)}"
    else:
        last = notes.tracks[agent_id][-1]  # known: the estimate came from it
        verb = "seen" if last.source == "seen" else "said it was"
        text = (f"{partner.name}: {verb} in the {room_name(last.room_id)} at step {last.step}, "
                f"probably in the {room_name(guess.room_id)} now")
    if spatial and guess.position is not None:
        metres = world.walk_distance(world.position, world.room_id, guess.position, guess.room_id)
        if math.isfinite(metres):
            text += f", about {metres:.0f} m from me"
    if partner.holding:
        text += f"; holding {_labels(world, partner.holding)}"
    intent = world.partner_intents.get(agent_id)
    if intent is not None and intent.target_id is not None:
        known = world.objects.get(intent.target_id) or world.rooms.get(intent.target_id)
        target = known.label if known is not None else f"({intent.target_id})"
        text += f"; said it would {intent.verb} {target}"
    return text
