"""The house of one TDW-MAT layout as metric rooms joined by doors, built from ThreeDWorld's floorplan data.

TDW's room regions exist only inside the running simulator. What the data keeps is one floor per room with its
pivot and the floors it touches (`floorplan_floods.json`) and the furniture with the bed (`floorplan_layouts.json`).
For scenes 1, 4 and 5 the pivots act as room centres: a point belongs to the room whose centre is nearest, which
labels every dataset object and bed as CoELA's metadata does, and a door between two touching rooms is the
midpoint of their centres. Scene 2's pivots are all equal, so its rooms are boxes fitted by hand from the floorplan
picture (`build_data.SCENE2`): a point belongs to the room whose boxes contain it (else the nearest box), and its
doors are the gaps in the picture's walls. Walking follows the doors (no furniture, no collisions).
"""

from __future__ import annotations

import heapq
import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # x_min, z_min, x_max, z_max
#: Where the shipped geometry lives (derived from ThreeDWorld's BSD-2 data: `data/LICENSE-tdw.txt`).
FLOORPLANS_FILE = "floorplans.json"


class FloorplanError(ValueError):
    """A scene or layout the shipped floorplan data does not cover."""


@dataclass(frozen=True)
class Room:
    """One room: CoELA's id (1000 * (region index + 1)), its type (Kitchen, Livingroom, Bedroom, Office)."""

    id: int
    type: str
    center: Point
    size: Point
    boxes: tuple[Box, ...] = ()  # hand-fitted regions (scene 2); empty: the nearest centre decides

    def box_distance(self, point: Point) -> float:
        """Metres from `point` to the nearest of the room's boxes (0 inside one)."""
        return min(math.hypot(max(b[0] - point[0], 0.0, point[0] - b[2]), max(b[1] - point[1], 0.0, point[1] - b[3]))
                   for b in self.boxes)

    @property
    def label(self) -> str:
        return f"<{self.type}> ({self.id})"


def distance(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


class FloorPlan:
    """Rooms, doors and the bed of one scene layout; `room_of`, `route` and `walk_distance` are the geometry
    the world, its kit and its baselines share."""

    def __init__(self, scene: str, layout: int, rooms: list[Room], doors: dict[tuple[int, int], Point],
                 bed: Point, bounds: tuple[float, float, float, float]) -> None:
        self.scene, self.layout = scene, layout
        self.rooms = {room.id: room for room in rooms}
        self.doors = doors  # (room a, room b) -> door point, both orders
        self.bed = bed
        self.bounds = bounds  # x_min, z_min, x_max, z_max of the house
        self.bed_room = self.room_of(bed)
        self._cells: dict[tuple[int, int], int | None] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> FloorPlan:
        return self  # fixed geometry: beliefs that copy themselves share it

    def cell_room(self, cell: tuple[int, int], size: float) -> int | None:
        """The room of a grid cell's centre (None outside the house), remembered: the frontier grid asks often."""
        if cell not in self._cells:
            centre = ((cell[0] + 0.5) * size, (cell[1] + 0.5) * size)
            self._cells[cell] = self.room_of(centre) if self.contains(centre) else None
        return self._cells[cell]

    def cells(self, size: float) -> list[tuple[int, int]]:
        """Every grid cell inside the house."""
        x_min, z_min, x_max, z_max = self.bounds
        found = [(i, j) for i in range(int(x_min // size), int(x_max // size) + 1)
                 for j in range(int(z_min // size), int(z_max // size) + 1)]
        return [c for c in found if self.cell_room(c, size) is not None]

    def room_of(self, point: Point) -> int:
        """The room a point lies in: the one whose boxes hold it (or are nearest), else whose centre is nearest."""
        rooms = self.rooms.values()
        if all(r.boxes for r in rooms):
            return min(rooms, key=lambda r: r.box_distance(point)).id
        return min(rooms, key=lambda r: distance(r.center, point)).id

    def neighbours(self, room_id: int) -> list[int]:
        return sorted(b for a, b in self.doors if a == room_id)

    def route(self, start: Point, goal: Point) -> list[Point]:
        """The points to walk through from `start` to `goal`: the doors on the shortest way, then the goal."""
        first, last = self.room_of(start), self.room_of(goal)
        if first == last:
            return [goal]
        best: dict[int, float] = {first: 0.0}
        came: dict[int, int] = {}
        where: dict[int, Point] = {first: start}
        queue = [(0.0, first)]
        while queue:
            cost, room = heapq.heappop(queue)
            if room == last:
                break
            if cost > best.get(room, math.inf):
                continue
            for other in self.neighbours(room):
                door = self.doors[(room, other)]
                total = cost + distance(where[room], door)
                if total < best.get(other, math.inf):
                    best[other], came[other], where[other] = total, room, door
                    heapq.heappush(queue, (total, other))
        if last not in came:
            return [goal]  # unreachable by doors (never in shipped data): walk straight
        doors: list[Point] = []
        room = last
        while room != first:
            doors.append(where[room])
            room = came[room]
        return [*reversed(doors), goal]

    def walk_distance(self, start: Point, goal: Point) -> float:
        """Metres along `route`."""
        total, here = 0.0, start
        for point in self.route(start, goal):
            total += distance(here, point)
            here = point
        return total

    def contains(self, point: Point) -> bool:
        x_min, z_min, x_max, z_max = self.bounds
        return x_min <= point[0] <= x_max and z_min <= point[1] <= z_max

    def clamp(self, point: Point) -> Point:
        x_min, z_min, x_max, z_max = self.bounds
        return (min(max(point[0], x_min), x_max), min(max(point[1], z_min), z_max))


@cache
def _shipped() -> dict[str, Any]:
    text = resources.files("coopgraph.envs.tdw_mat").joinpath("data", FLOORPLANS_FILE).read_text()
    return json.loads(text)


def shipped_data() -> dict[str, Any]:
    """The shipped `floorplans.json`: per scene its geometry, per layout the bed, room types and surfaces."""
    return _shipped()


def known_scenes() -> list[str]:
    return sorted(_shipped()["scenes"])


def load_floorplan(scene: str, layout: int, room_types: list[str] | tuple[str, ...]) -> FloorPlan:
    """The house of `scene` (`"1"` or `"1a"`) and `layout`, its regions named by the dataset's `room_types`;
    one shared instance per house."""
    return _load_floorplan(scene, layout, tuple(room_types))


@cache
def _load_floorplan(scene: str, layout: int, room_types: tuple[str, ...]) -> FloorPlan:
    key = scene.rstrip("abcdefghijklmnopqrstuvwxyz")
    data = _shipped()["scenes"].get(key)
    if data is None:
        raise FloorplanError(f"scene {scene!r} has no floorplan data: coopgraph.envs.tdw_mat's data/{FLOORPLANS_FILE} "
                             f"has scenes {', '.join(known_scenes())}")
    plan = data["layouts"].get(str(layout))
    if plan is None:
        raise FloorplanError(f"scene {scene!r} has no layout {layout}; shipped: {', '.join(sorted(data['layouts']))}")
    region_floor: dict[str, str] = data["region_floor"]
    if len(room_types) != len(region_floor):
        raise FloorplanError(f"scene {scene!r} layout {layout}: room_types names {len(room_types)} regions, the "
                             f"floorplan has {len(region_floor)}")
    rooms, floor_room = [], {}
    fitted: dict[str, list[list[float]]] = data.get("room_boxes", {})
    for index, kind in enumerate(room_types):
        floor = region_floor[str(index)]
        x_min, z_min, x_max, z_max = data["floor_boxes"][floor]
        boxes = tuple(tuple(b) for b in fitted.get(floor, []))
        rooms.append(Room(1000 * (index + 1), kind, tuple(data["floors"][floor]),  # type: ignore[arg-type]
                          (round(x_max - x_min, 2), round(z_max - z_min, 2)), boxes))  # type: ignore[arg-type]
        floor_room[floor] = rooms[-1]
    doors: dict[tuple[int, int], Point] = {}
    for floor, other, x, z in data.get("doors", []):  # hand-fitted doors: the gaps in the walls
        a, b = floor_room[floor], floor_room[other]
        doors[(a.id, b.id)] = doors[(b.id, a.id)] = (x, z)
    for floor, others in data["adjacent"].items():
        for other in others:
            a, b = floor_room[floor], floor_room[other]
            door = ((a.center[0] + b.center[0]) / 2, (a.center[1] + b.center[1]) / 2)
            doors.setdefault((a.id, b.id), door)
            doors.setdefault((b.id, a.id), door)
    return FloorPlan(key, layout, rooms, doors, tuple(plan["bed"]), tuple(data["bounds"]))  # type: ignore[arg-type]
