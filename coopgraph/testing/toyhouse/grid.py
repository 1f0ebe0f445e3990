"""The toyhouse's geometry: rooms in a row on a grid of cells, doors on one row, one cell per tick.

Inside a room an agent walks x first, then y. Between rooms it first walks to the door row, then along it,
so the walking distance has a closed form: |dx| + |dy| in one room, |dx| + |ya - d| + |yb - d| across rooms
(d the door row). The world moves agents with `next_cell`, and the belief's estimates use `distance`, so
both agree on every figure.
"""

from __future__ import annotations

from dataclasses import dataclass

Cell = tuple[int, int]


@dataclass(frozen=True)
class GridRoom:
    """A rectangle of cells: columns x0 .. x0+width-1, rows 0 .. depth-1."""

    id: int
    name: str
    x0: int
    width: int
    depth: int

    @property
    def x1(self) -> int:
        return self.x0 + self.width - 1

    @property
    def center(self) -> Cell:
        return (self.x0 + self.width // 2, self.depth // 2)

    def contains(self, cell: Cell) -> bool:
        return self.x0 <= cell[0] <= self.x1 and 0 <= cell[1] < self.depth


def _toward(value: int, goal: int) -> int:
    return value + (goal > value) - (goal < value)


class Grid:
    """Rooms side by side, west to east, joined by doors on `door_row`."""

    def __init__(self, rooms: list[GridRoom], door_row: int) -> None:
        self.rooms = {room.id: room for room in sorted(rooms, key=lambda r: r.x0)}
        self.door_row = door_row

    def room_of(self, cell: Cell) -> int:
        for room in self.rooms.values():
            if room.contains(cell):
                return room.id
        raise ValueError(f"cell {cell} is outside the house")

    def distance(self, a: Cell, b: Cell) -> int:
        """Cells walked from a to b."""
        if self.room_of(a) == self.room_of(b):
            return abs(a[0] - b[0]) + abs(a[1] - b[1])
        return abs(a[0] - b[0]) + abs(a[1] - self.door_row) + abs(b[1] - self.door_row)

    def next_cell(self, a: Cell, b: Cell) -> Cell:
        """The cell one tick of walking from a toward b takes an agent to (a itself when a is b)."""
        if self.room_of(a) != self.room_of(b) and a[1] != self.door_row:
            return (a[0], _toward(a[1], self.door_row))
        if a[0] != b[0]:
            return (_toward(a[0], b[0]), a[1])
        return (a[0], _toward(a[1], b[1]))

    def cells_to_room(self, a: Cell, room_id: int) -> int:
        """Cells walked from a until it stands in the room (0 when already there)."""
        room = self.rooms[room_id]
        if room.contains(a):
            return 0
        across = room.x0 - a[0] if a[0] < room.x0 else a[0] - room.x1
        return abs(a[1] - self.door_row) + across

    def point_along(self, a: Cell, b: Cell, cells: int) -> Cell:
        """Where a walker from a to b stands after `cells` ticks."""
        for _ in range(max(0, cells)):
            if a == b:
                break
            a = self.next_cell(a, b)
        return a
