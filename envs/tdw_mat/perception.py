"""What an agent sees: a 90 degree view cone within range, inside its own room (walls hide the others).

`oracle` sees everything in the cone, as CoELA's ground-truth segmentation does; `detector` misses each object
on each observation with a per-class probability, standing in for the fine-tuned Mask-RCNN of the papers' "without
oracle perception" columns (small stuff is missed more often than food). The cone has no occlusion by furniture.
"""

from __future__ import annotations

import random

from coopgraph.envs.tdw_mat.floorplan import FloorPlan, Point, distance
from coopgraph.envs.tdw_mat.world import Body, Thing, World, angle_between, bearing

#: Seen-cell size (metres) of the frontier grid RHP explores with, and how far a look marks cells seen.
CELL = 0.5
SEEN_RANGE = {"oracle": 5.0, "detector": 3.0}
#: An object this near is seen whatever the heading (it is at the agent's feet or in reach of its arms).
NEAR = 0.75


def in_view(body: Body, point: Point, room_id: int, view_degrees: float, view_range: float) -> bool:
    """Within range, inside the cone and in the agent's room."""
    return in_view_from(body.position, body.heading, body.room_id, point, room_id, view_degrees, view_range)


def in_view_from(position: Point, heading: float, room_id: int, point: Point, point_room: int | None,
                 view_degrees: float, view_range: float) -> bool:
    """`in_view` for a pose rather than a body: what an agent's belief asks of a place it remembers."""
    if point_room != room_id:
        return False
    d = distance(position, point)
    if d <= NEAR:
        return True
    return d <= view_range and abs(angle_between(heading, bearing(position, point))) <= view_degrees / 2


def _class(world: World, thing: Thing) -> str:
    return world.episode.task if thing.kind == "target" else thing.kind


def visible_things(world: World, body: Body, rng: random.Random) -> list[Thing]:
    """Things the agent registers now (not those in its own hands or containers, nor ones out of play)."""
    rules = world.rules
    seen = []
    for thing in world.things.values():
        if thing.lost:
            continue
        position, room = world.where(thing)
        if thing.holder == body.id or (thing.inside is not None and world.things[thing.inside].holder == body.id):
            continue
        if not in_view(body, position, room, rules.view_degrees, rules.view_range):
            continue
        if rules.perception == "detector" and rng.random() < rules.p_miss.get(_class(world, thing), 0.0):
            continue
        seen.append(thing)
    return seen


def visible_agents(world: World, body: Body, rng: random.Random) -> list[Body]:
    rules = world.rules
    seen = []
    for other in world.agents.values():
        if other.id == body.id or not in_view(body, other.position, other.room_id, rules.view_degrees,
                                              rules.view_range):
            continue
        if rules.perception == "detector" and rng.random() < rules.p_miss.get("agent", 0.0):
            continue
        seen.append(other)
    return seen


def cells_in_view(plan: FloorPlan, position: Point, heading: float, room_id: int, reach: float,
                  view_degrees: float) -> list[tuple[int, int]]:
    """The frontier grid's cells a look from here marks seen: in the cone, in the room, within `reach`."""
    x0, z0 = int(position[0] // CELL), int(position[1] // CELL)
    span = int(reach // CELL) + 1
    cells = []
    for i in range(x0 - span, x0 + span + 1):
        for j in range(z0 - span, z0 + span + 1):
            centre = ((i + 0.5) * CELL, (j + 0.5) * CELL)
            d = distance(position, centre)
            if d > reach or plan.cell_room((i, j), CELL) != room_id:
                continue
            if d <= NEAR or abs(angle_between(heading, bearing(position, centre))) <= view_degrees / 2:
                cells.append((i, j))
    return cells
