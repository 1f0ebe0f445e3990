"""The house as the trace viewer draws it: room rectangles, doors, the bed and its goal circle, and every target,
container and agent where the episode starts (TDW's x, z in metres; heading 0 faces +z)."""

from __future__ import annotations

from typing import Any

from coopgraph.envs.tdw_mat.floorplan import FloorPlan
from coopgraph.envs.tdw_mat.world import World

#: The viewer's name for this kind of map (C-WAH's is rooms of furniture, Overcooked's a grid of cells).
KIND = "floorplan"


def house_layout(world: World, plan: FloorPlan) -> dict[str, Any]:
    """JSON-able map of one episode at its start, for `episode_start.layout`."""
    rooms = [{"id": r.id, "name": r.label, "x": round(r.center[0] - r.size[0] / 2, 3),
              "y": round(r.center[1] - r.size[1] / 2, 3), "width": round(r.size[0], 3), "depth": round(r.size[1], 3)}
             for r in plan.rooms.values()]
    rooms += [{"id": w.id, "name": f"hallway ({w.type}: no room)", "x": box[0], "y": box[1],
               "width": round(box[2] - box[0], 3), "depth": round(box[3] - box[1], 3)}
              for w in plan.walkways.values() for box in w.boxes]  # scene 2's hallway, which routes cross
    doors = [{"rooms": [a, b], "position": [round(p[0], 3), round(p[1], 3)]}
             for (a, b), p in sorted(plan.doors.items()) if a < b]
    things = [{"id": t.id, "name": t.name, "kind": t.kind, "position": [round(t.position[0], 3),
                                                                          round(t.position[1], 3)]}
              for t in world.things.values() if t.kind != "bed"]
    starts = [{"agent": b.id, "position": [round(b.position[0], 3), round(b.position[1], 3)], "heading": b.heading}
              for b in world.agents.values()]
    return {"kind": KIND, "rooms": rooms, "doors": doors,
            "bed": {"position": [round(plan.bed[0], 3), round(plan.bed[1], 3)], "room": plan.bed_room},
            "goal_radius": world.rules.goal_radius, "things": things, "agent_starts": starts}
