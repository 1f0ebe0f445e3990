"""Walking as TDW-MAT's agents walk: toward the next door on the way, forward when facing it, else a 15 degree turn.

The reference agents aim a few cells ahead on their A* path and step forward when the heading error is under
18 degrees, turning otherwise; here the path is the floorplan's route through doors. The skill book and the RHP
baseline both steer with `steer`, so they walk alike.
"""

from __future__ import annotations

from coopgraph.envs.protocol import PrimitiveAction
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, Point, distance
from coopgraph.envs.tdw_mat.world import angle_between, bearing

#: Step forward when the heading is off by less than this (degrees).
FORWARD_TOLERANCE = 18.0
#: A door this near is passed: aim at the next point of the route.
PASSED = 0.35

FORWARD = PrimitiveAction(kind="move_forward")
LEFT = PrimitiveAction(kind="turn_left")
RIGHT = PrimitiveAction(kind="turn_right")


def next_point(plan: FloorPlan, position: Point, goal: Point) -> Point:
    """The point of the route from here to `goal` after the last one already reached (the first, if none is)."""
    route = plan.route(position, goal)
    reached = [index for index, point in enumerate(route[:-1]) if distance(position, point) <= PASSED]
    return route[reached[-1] + 1 if reached else 0]


def steer(plan: FloorPlan, position: Point, heading: float, goal: Point) -> PrimitiveAction:
    """One primitive toward `goal`: forward if facing the next point of the way, else a turn toward it."""
    error = angle_between(heading, bearing(position, next_point(plan, position, goal)))
    if abs(error) < FORWARD_TOLERANCE:
        return FORWARD
    return RIGHT if error > 0 else LEFT


def arrived(plan: FloorPlan, position: Point, goal: Point, within: float, room_id: int | None = None) -> bool:
    """Within `within` metres of `goal` (and, when `room_id` is given, in that room)."""
    return distance(position, goal) <= within and (room_id is None or plan.room_of(position) == room_id)
