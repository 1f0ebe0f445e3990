"""Floor-plan geometry: shortest walking paths through doorways and moving a fixed distance along them.

Rooms are convex rectangles, so inside a room agents walk straight; between rooms the path is a
Dijkstra search over the doorways (a handful of nodes), which keeps distances real and deterministic.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from coopgraph.envs.cwah.episode import DoorSpec, RoomSpec
from coopgraph.envs.protocol import Point


def euclid(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


@dataclass(frozen=True)
class Waypoint:
    """A corner of a walking path and the room the walker is in once it reaches it."""

    position: Point
    room: int


class FloorPlan:
    """Rooms and doors of one house, answering distance and path queries (metres)."""

    def __init__(self, rooms: Sequence[RoomSpec], doors: Sequence[DoorSpec]) -> None:
        self.rooms = {room.id: room for room in rooms}
        self.doors = list(doors)
        self._doors_of: dict[int, list[int]] = {room_id: [] for room_id in self.rooms}
        for index, door in enumerate(self.doors):
            for room_id in door.rooms:
                self._doors_of[room_id].append(index)
        self._cache: dict[tuple[Point, int, Point, int], tuple[float, tuple[Waypoint, ...]]] = {}

    def room_name(self, room_id: int) -> str:
        return self.rooms[room_id].name

    def room_center(self, room_id: int) -> Point:
        return self.rooms[room_id].center

    def neighbours(self, room_id: int) -> list[int]:
        """Rooms reachable through one door."""
        out = []
        for index in self._doors_of[room_id]:
            a, b = self.doors[index].rooms
            out.append(b if a == room_id else a)
        return sorted(set(out))

    def path(
        self, start: Point, start_room: int, goal: Point, goal_room: int
    ) -> tuple[float, tuple[Waypoint, ...]]:
        """Shortest path length and its waypoints (doors then the goal); raises if unreachable."""
        key = (start, start_room, goal, goal_room)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        result = self._search(start, start_room, goal, goal_room)
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[key] = result
        return result

    def distance(self, start: Point, start_room: int, goal: Point, goal_room: int) -> float:
        return self.path(start, start_room, goal, goal_room)[0]

    def _search(
        self, start: Point, start_room: int, goal: Point, goal_room: int
    ) -> tuple[float, tuple[Waypoint, ...]]:
        if start_room == goal_room:
            return euclid(start, goal), (Waypoint(goal, goal_room),)
        # Nodes are (door index, room entered through it); the start node is (-1, start_room).
        best: dict[tuple[int, int], float] = {(-1, start_room): 0.0}
        previous: dict[tuple[int, int], tuple[int, int]] = {}
        frontier: list[tuple[float, int, int]] = [(0.0, -1, start_room)]
        goal_cost, goal_node = math.inf, None
        while frontier:
            cost, door_index, room_id = heapq.heappop(frontier)
            if cost > best.get((door_index, room_id), math.inf) or cost >= goal_cost:
                continue
            here = start if door_index < 0 else self.doors[door_index].position
            if room_id == goal_room:
                total = cost + euclid(here, goal)
                if total < goal_cost:
                    goal_cost, goal_node = total, (door_index, room_id)
                continue
            for next_index in self._doors_of[room_id]:
                door = self.doors[next_index]
                next_room = door.rooms[1] if door.rooms[0] == room_id else door.rooms[0]
                node = (next_index, next_room)
                next_cost = cost + euclid(here, door.position)
                if next_cost < best.get(node, math.inf):
                    best[node] = next_cost
                    previous[node] = (door_index, room_id)
                    heapq.heappush(frontier, (next_cost, next_index, next_room))
        if goal_node is None:
            raise ValueError(f"room {goal_room} cannot be reached from room {start_room}")
        waypoints = [Waypoint(goal, goal_room)]
        node = goal_node
        while node[0] >= 0:
            waypoints.append(Waypoint(self.doors[node[0]].position, node[1]))
            node = previous[node]
        return goal_cost, tuple(reversed(waypoints))

    def advance(
        self, start: Point, start_room: int, goal: Point, goal_room: int, max_distance: float
    ) -> tuple[Point, int, float]:
        """Walk up to `max_distance` along the shortest path: new position, room, metres walked."""
        _, waypoints = self.path(start, start_room, goal, goal_room)
        position, room, budget, walked = start, start_room, max_distance, 0.0
        for waypoint in waypoints:
            leg = euclid(position, waypoint.position)
            if leg <= budget + 1e-9:
                position, room = waypoint.position, waypoint.room
                budget -= leg
                walked += leg
                continue
            ratio = budget / leg
            position = (
                position[0] + (waypoint.position[0] - position[0]) * ratio,
                position[1] + (waypoint.position[1] - position[1]) * ratio,
            )
            walked += budget
            break
        return (round(position[0], 4), round(position[1], 4)), room, walked
