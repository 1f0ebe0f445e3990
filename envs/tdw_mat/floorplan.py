"""The house of one TDW-MAT layout as metric rooms joined by doors, built from ThreeDWorld's floorplan data.

TDW's room regions exist only inside the running simulator. What the data keeps is one floor per room with its
pivot and the floors it touches (`floorplan_floods.json`) and the furniture with the bed (`floorplan_layouts.json`).
For scenes 1, 4 and 5 the pivots act as room centres: a point belongs to the room whose centre is nearest, which
labels every dataset object and bed as CoELA's metadata does, and a door between two touching rooms is the
midpoint of their centres. Scene 2's pivots are all equal, so its regions are boxes read off the floorplan picture
(`build_data.SCENE2`), and a point belongs to a room as CoELA's code decides it: the first region (by index) whose
box holds it, else the nearest box. As in CoELA, a region whose type is not a room (scene 2's Porch: the hallway)
is no room: nobody is ever in it, and a point there belongs to the nearest room's box. It stays a *walkway* that
routes pass through, joined to the rooms by the gaps in the picture's walls. Walking follows the doors (no
furniture, no collisions).
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
#: Where regions are boxes, a door is a gap in a wall, walked through square to it from this far (metres) before
#: it to this far after it: walking straight at it from along the wall would graze the wall and the room beyond.
DOOR_DEPTH = 0.6
#: The region types CoELA names as rooms; any other region (scene 2's Porch) is named None there: no room.
ROOM_TYPES = ("Kitchen", "Livingroom", "Bedroom", "Office")


class FloorplanError(ValueError):
    """A scene or layout the shipped floorplan data does not cover."""


@dataclass(frozen=True)
class Room:
    """One room (or walkway): CoELA's id (1000 * (region index + 1)), its type (Kitchen, Livingroom, Bedroom,
    Office; a walkway's is its region's, e.g. Porch)."""

    id: int
    type: str
    center: Point
    size: Point
    boxes: tuple[Box, ...] = ()  # hand-fitted regions (scene 2); empty: the nearest centre decides

    def box_distance(self, point: Point) -> float:
        """Metres from `point` to the nearest of the room's boxes (0 inside one)."""
        return min(math.hypot(max(b[0] - point[0], 0.0, point[0] - b[2]), max(b[1] - point[1], 0.0, point[1] - b[3]))
                   for b in self.boxes)

    def holds(self, point: Point) -> bool:
        """Inside one of the room's boxes."""
        return any(b[0] <= point[0] <= b[2] and b[1] <= point[1] <= b[3] for b in self.boxes)

    @property
    def label(self) -> str:
        return f"<{self.type}> ({self.id})"


def distance(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


class FloorPlan:
    """Rooms, walkways, doors and the bed of one scene layout; `room_of`, `route` and `walk_distance` are the
    geometry the world, its kit and its baselines share. `rooms` are CoELA's named rooms only; `walkways` (scene
    2's hallway) are areas that routes cross but nobody is ever in."""

    def __init__(self, scene: str, layout: int, rooms: list[Room], doors: dict[tuple[int, int], Point],
                 bed: Point, bounds: tuple[float, float, float, float], walkways: list[Room] | None = None) -> None:
        self.scene, self.layout = scene, layout
        self.rooms = {room.id: room for room in rooms}
        self.walkways = {walkway.id: walkway for walkway in walkways or []}
        self.doors = doors  # (area a, area b) -> door point, both orders; an area is a room or a walkway
        self.bed = bed
        self.bounds = bounds  # x_min, z_min, x_max, z_max of the house
        self.boxed = all(r.boxes for r in self.rooms.values())  # regions are boxes (scene 2), not nearest centres
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
        """The room a point lies in: with boxes, CoELA's rule (the first room by index whose box holds it, else the
        nearest box: a walkway's points belong to a room beside it); else the room whose centre is nearest."""
        rooms = self.rooms.values()
        if self.boxed:
            return min(rooms, key=lambda r: r.box_distance(point)).id
        return min(rooms, key=lambda r: distance(r.center, point)).id

    def area_of(self, point: Point) -> int:
        """Where a point is for walking: a room whose box holds it, else a walkway whose box does, else the room
        `room_of` says (the door graph joins areas)."""
        if self.walkways and not any(r.holds(point) for r in self.rooms.values()):
            walkway = next((w for w in self.walkways.values() if w.holds(point)), None)
            if walkway is not None:
                return walkway.id
        return self.room_of(point)

    def neighbours(self, area_id: int) -> list[int]:
        """The rooms and walkways one door away."""
        return sorted(b for a, b in self.doors if a == area_id)

    def route(self, start: Point, goal: Point) -> list[Point]:
        """The points to walk through from `start` to `goal`: the doors on the shortest way, then the goal."""
        first, last = self.area_of(start), self.area_of(goal)
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
        crossings: list[tuple[int, Point, int]] = []
        room = last
        while room != first:
            crossings.append((came[room], where[room], room))
            room = came[room]
        points: list[Point] = []
        for before, door, after in reversed(crossings):
            points += self._crossing(before, door, after) if self.boxed else [door]
        return [*points, goal]

    def _crossing(self, before: int, door: Point, after: int) -> list[Point]:
        """A door in a wall, walked square through it: a point `DOOR_DEPTH` before it, the door, a point after."""
        for dx, dz in ((DOOR_DEPTH, 0.0), (-DOOR_DEPTH, 0.0), (0.0, DOOR_DEPTH), (0.0, -DOOR_DEPTH)):
            ahead, behind = (door[0] + dx, door[1] + dz), (door[0] - dx, door[1] - dz)
            if self.area_of(behind) == before and self.area_of(ahead) == after:
                return [behind, door, ahead]
        return [door]

    def walk_distance(self, start: Point, goal: Point) -> float:
        """Metres along `route`."""
        total, here = 0.0, start
        for point in self.route(start, goal):
            total += distance(here, point)
            here = point
        return total

    def contains(self, point: Point) -> bool:
        """Inside the house: within its bounds and, where regions are boxes, inside a room's or walkway's box."""
        x_min, z_min, x_max, z_max = self.bounds
        if not (x_min <= point[0] <= x_max and z_min <= point[1] <= z_max):
            return False
        return not self.boxed or any(a.holds(point) for a in [*self.rooms.values(), *self.walkways.values()])

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
    rooms, walkways, floor_room = [], [], {}
    fitted: dict[str, list[list[float]]] = data.get("room_boxes", {})
    for index, kind in enumerate(room_types):
        floor = region_floor[str(index)]
        x_min, z_min, x_max, z_max = data["floor_boxes"][floor]
        boxes = tuple(tuple(b) for b in fitted.get(floor, []))
        area = Room(1000 * (index + 1), kind, tuple(data["floors"][floor]),  # type: ignore[arg-type]
                    (round(x_max - x_min, 2), round(z_max - z_min, 2)), boxes)  # type: ignore[arg-type]
        if kind in ROOM_TYPES:
            rooms.append(area)
        elif boxes:  # not a room in CoELA (None), but floor that routes cross
            walkways.append(area)
        else:
            continue
        floor_room[floor] = area
    doors: dict[tuple[int, int], Point] = {}
    for floor, other, x, z in data.get("doors", []):  # hand-fitted doors: the gaps in the walls
        if floor in floor_room and other in floor_room:
            a, b = floor_room[floor], floor_room[other]
            doors[(a.id, b.id)] = doors[(b.id, a.id)] = (x, z)
    if "doors" not in data:  # doors between touching floors, at the midpoint of their centres
        for floor, others in data["adjacent"].items():
            for other in others:
                if floor not in floor_room or other not in floor_room:
                    continue
                a, b = floor_room[floor], floor_room[other]
                door = ((a.center[0] + b.center[0]) / 2, (a.center[1] + b.center[1]) / 2)
                doors.setdefault((a.id, b.id), door)
                doors.setdefault((b.id, a.id), door)
    return FloorPlan(key, layout, rooms, doors, tuple(plan["bed"]), tuple(data["bounds"]),  # type: ignore[arg-type]
                     walkways)
