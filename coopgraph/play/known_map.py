"""The map a person sees in a house world (C-WAH's rooms, TDW-MAT's floorplan): the house's shape, and on it only
what their agent knows.

The house's rooms and doors are given to every agent at the start, so the page gets them once (`house_layout`,
with the world's objects, things and start places taken out). Each turn then carries `known_map`: where the agent
stands, the rooms it has seen, the objects its belief holds a place for, and partners its observation shows now.
Nothing is read from the world's truth.
"""

from __future__ import annotations

import math
from typing import Any

from coopgraph.envs.protocol import HouseObservation, Observation

#: The layout keys that describe the house's shape; everything else (objects, things, agent starts, the bed) is
#: the world's truth and stays on the server.
_SHAPE_KEYS = ("rooms", "doors")


def house_layout(layout: dict[str, Any] | None) -> dict[str, Any] | None:
    """What of a world's `layout()` the page may hold: a grid world's whole layout (its terrain is fixed and fully
    seen), a house's rooms and doors (`kind` "house" for C-WAH's rooms, "floorplan" for TDW-MAT, with the radius
    of the bed's goal circle), else None."""
    if not isinstance(layout, dict):
        return None
    if layout.get("kind") == "grid":
        return layout
    if not layout.get("rooms"):
        return None
    shape = {key: layout.get(key) or [] for key in _SHAPE_KEYS}
    if layout.get("kind") == "floorplan":  # the goal circle's size is a rule every agent knows; the bed's place not
        return {"kind": "floorplan", **shape, "goal_radius": layout.get("goal_radius")}
    return {"kind": "house", **shape}


def _rooms_seen(belief: Any, here: int) -> list[int]:
    """The rooms the agent has been in or looked over: TDW-MAT's `explored` marks (part or all; its
    `explored_rooms` counts only whole sweeps), else C-WAH's `explored_rooms`."""
    marks = getattr(belief, "explored", None)
    if isinstance(marks, dict):
        explored = {room for room, mark in marks.items() if mark != "none"}
    else:
        explored = set(getattr(belief, "explored_rooms", None) or ())
    return sorted({int(room) for room in explored} | {here})


def _known_objects(belief: Any) -> list[dict[str, Any]]:
    """Objects the belief places somewhere in the house (held ones are listed in the view, not drawn). An object
    on or in a piece of furniture is drawn beside it, spread round it so several do not overlap."""
    objects = getattr(belief, "objects", None) or {}
    beside: dict[int, int] = {}
    known = []
    for obj in sorted(objects.values(), key=lambda o: o.id):
        holder = obj.inside if obj.inside is not None else getattr(obj, "on", None)
        position = obj.position
        if isinstance(holder, int) and holder in objects and objects[holder].position is not None:
            index = beside[holder] = beside.get(holder, -1) + 1
            angle, radius = index * 2.4, 0.3 + 0.08 * (index // 6)
            base = objects[holder].position
            position = (base[0] + radius * math.cos(angle), base[1] + radius * math.sin(angle))
        if position is None or obj.held_by is not None:
            continue
        known.append({"id": obj.id, "name": obj.name, "kind": obj.kind, "room_id": obj.room_id,
                      "position": [round(float(position[0]), 3), round(float(position[1]), 3)],
                      "inside": obj.inside, "is_open": getattr(obj, "is_open", None),
                      "source": getattr(obj, "source", "seen")})
    return known


def known_map(obs: Observation, belief: Any) -> dict[str, Any] | None:
    """For an observation in a house, what the agent's map shows; None in other worlds."""
    if not isinstance(obs, HouseObservation):
        return None
    heading = getattr(obs, "heading", None)
    return {"room_id": obs.room_id, "position": [float(obs.position[0]), float(obs.position[1])],
            "heading": None if heading is None else float(heading),
            "rooms_seen": _rooms_seen(belief, obs.room_id), "objects": _known_objects(belief),
            "partners": [{"agent_id": p.agent_id, "name": p.name, "room_id": p.room_id,
                          "position": [float(p.position[0]), float(p.position[1])]} for p in obs.partners]}
