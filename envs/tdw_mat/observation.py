"""Observations of TDW-MAT: what one agent sees, holds and is told, in the protocol's `HouseObservation`.

Time is frames; a held container's contents are listed among `holding` with `inside` set to the container.
`heading` (degrees, 0 facing +z) is added: the skill book steers with it; so is `last_action_cause`, what a refused
grasp said about its object (held, in a container, transported, not within reach), which the belief learns from.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from coopgraph.envs.protocol import GoalPredicate, HouseObservation, ObjectInfo, PartnerInfo, RoomInfo
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, distance
from coopgraph.envs.tdw_mat.perception import visible_agents, visible_things
from coopgraph.envs.tdw_mat.world import BED_ID, Body, FailureCause, Thing, World

KINDS: dict[str, Literal["item", "container", "surface"]] = {"target": "item", "container": "container",
                                                             "bed": "surface"}


class TDWObservation(HouseObservation):
    """A `HouseObservation` with the agent's heading and the typed cause of its last action's failure."""

    heading: float = Field(default=0.0, description="degrees, 0 facing +z, turning right adds 15")
    last_action_cause: FailureCause | None = Field(
        default=None, description="why the last grasp failed, when the world named the object's state: held, inside "
        "a container, already transported, or elsewhere (in another room or out of reach: not within reach from "
        "where the agent stands); the same fact `last_action_reason` says in words")


def room_infos(plan: FloorPlan) -> list[RoomInfo]:
    return [RoomInfo(id=r.id, name=r.type, center=r.center, size=r.size) for r in plan.rooms.values()]


def goal_predicates(world: World) -> list[GoalPredicate]:
    return [GoalPredicate(relation="ON", object_name=name, target_id=BED_ID, target_name="bed", count=n)
            for name, n in world.episode.goal_counts().items()]


def object_info(world: World, thing: Thing, viewer: Body) -> ObjectInfo:
    position, room = world.where(thing)
    holder = thing.holder or (world.things[thing.inside].holder if thing.inside is not None else None)
    return ObjectInfo(id=thing.id, name=thing.name, kind=KINDS[thing.kind], room=world.plan.rooms[room].type,
                      room_id=room, position=position, inside=thing.inside, held_by=holder,
                      distance=round(distance(viewer.position, position), 2))


def holding(world: World, body: Body) -> list[ObjectInfo]:
    """What the hands hold, each container followed by its contents."""
    items = []
    for held in body.held():
        thing = world.things[held]
        items.append(object_info(world, thing, body))
        items += [object_info(world, world.things[i], body) for i in thing.contents]
    return items


def observe(world: World, body: Body, rng: random.Random, **core: object) -> TDWObservation:
    """One agent's observation now; `core` carries the protocol fields the env fills (time, messages, ...)."""
    plan = world.plan
    partners = [PartnerInfo(agent_id=o.id, name=o.name, room=plan.rooms[o.room_id].type, room_id=o.room_id,
                            position=o.position, holding=holding(world, o)) for o in visible_agents(world, body, rng)]
    return TDWObservation(
        agent_id=body.id, agent_name=body.name, horizon=world.rules.max_frames, goal_text=world.episode.goal_text(),
        room=plan.rooms[body.room_id].type, room_id=body.room_id, position=body.position, heading=body.heading,
        visible_objects=[object_info(world, t, body) for t in visible_things(world, body, rng)],
        holding=holding(world, body), partners=partners, goal=goal_predicates(world), rooms=room_infos(plan),
        **core)  # type: ignore[arg-type]
