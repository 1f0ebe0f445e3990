"""Collab Capture's rules as pure functions on a frozen state: the thief's flight, presses, moves and capture.

A turn: both players choose (stay, move to an open neighbour, or press the button of their room); the thief picks
its room against the players' *planned* rooms with the doors as they stand; presses toggle their doors; then
everyone moves (the thief even through a door closed this turn). The thief is caught when it ends in a player's
room or swaps rooms with a player. The thief keeps to the accessible neighbour farthest from the nearer planned
room, ties to the first in the room's list, and stays only when every way out is shut. The reference measures
"far" by room number (`|r - a|`); `distance="graph"` measures it in moves instead.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Literal

from coopgraph.envs.collab.maps import CAPTURE_BUTTONS, CAPTURE_ROOMS, Door, button_door, door_of

Distance = Literal["number", "graph"]
DISTANCES: tuple[str, ...] = ("number", "graph")
PLAYERS: tuple[str, str] = ("alice", "bob")


@dataclass(frozen=True)
class CaptureState:
    """Where the two players and the thief are, and which doors are open."""

    players: tuple[int, int]
    thief: int
    doors: tuple[tuple[Door, bool], ...]

    @property
    def open_doors(self) -> dict[Door, bool]:
        return dict(self.doors)

    def caught(self) -> bool:
        return self.thief in self.players


@dataclass(frozen=True)
class CaptureMove:
    """One player's turn: stay, move to `room`, or press the button of the room it stands in."""

    kind: Literal["stay", "move", "press"] = "stay"
    room: int | None = None


def passable(state: CaptureState, a: int, b: int) -> bool:
    """Whether the link a-b exists and its door (if any) is open."""
    door = door_of(a, b)
    return b in CAPTURE_ROOMS[a] and (door is None or state.open_doors[door])


def accessible(state: CaptureState, room: int) -> list[int]:
    """The neighbours of `room` reachable now, in the room's list order."""
    return [r for r in CAPTURE_ROOMS[room] if passable(state, room, r)]


def moves_apart(state: CaptureState, start: int, goal: int) -> float:
    """Moves from `start` to `goal` through open doors (inf when shut off)."""
    seen, queue = {start: 0}, deque([start])
    while queue:
        room = queue.popleft()
        if room == goal:
            return float(seen[room])
        for nxt in accessible(state, room):
            if nxt not in seen:
                seen[nxt] = seen[room] + 1
                queue.append(nxt)
    return float("inf")


def _apart(state: CaptureState, a: int, b: int, distance: Distance) -> float:
    return float(abs(a - b)) if distance == "number" else moves_apart(state, a, b)


def thief_plan(state: CaptureState, planned: tuple[int, int], distance: Distance = "number") -> int:
    """Where the thief goes this turn, given the players' planned rooms and the doors as they stand."""
    options = accessible(state, state.thief)
    if not options:
        return state.thief
    return max(options, key=lambda r: min(_apart(state, r, p, distance) for p in planned))


def planned_room(state: CaptureState, index: int, move: CaptureMove) -> int:
    """Where player `index` ends the turn: a move to an inaccessible room (or anything else) stays."""
    here = state.players[index]
    if move.kind == "move" and move.room is not None and move.room in accessible(state, here):
        return move.room
    return here


def valid(state: CaptureState, index: int, move: CaptureMove) -> bool:
    """Whether the move is one the player may make (an invalid one is a stay)."""
    here = state.players[index]
    if move.kind == "move":
        return move.room in accessible(state, here)
    if move.kind == "press":
        return button_door(here) is not None
    return True


def step(state: CaptureState, moves: tuple[CaptureMove, CaptureMove],
         distance: Distance = "number") -> tuple[CaptureState, bool]:
    """One turn; returns the new state and whether the thief was caught (same room or a swap)."""
    planned = (planned_room(state, 0, moves[0]), planned_room(state, 1, moves[1]))
    thief_to = thief_plan(state, planned, distance)
    doors = state.open_doors
    for index, move in enumerate(moves):
        door = button_door(state.players[index]) if move.kind == "press" else None
        if door is not None:
            doors[door] = not doors[door]
    after = replace(state, players=planned, thief=thief_to, doors=tuple(sorted(doors.items())))
    swapped = any(state.players[i] == thief_to and planned[i] == state.thief for i in range(2))
    return after, after.caught() or swapped


def start_state(alice: int, bob: int, thief: int, open_doors: dict[Door, bool]) -> CaptureState:
    """A start; every door of the map must be given."""
    if set(open_doors) != set(CAPTURE_BUTTONS):
        raise ValueError(f"a Capture start names doors {sorted(open_doors)}; the map has {sorted(CAPTURE_BUTTONS)}")
    for room in (alice, bob, thief):
        if room not in CAPTURE_ROOMS:
            raise ValueError(f"room {room} is not on the Capture map (rooms 1-{len(CAPTURE_ROOMS)})")
    return CaptureState((alice, bob), thief, tuple(sorted(open_doors.items())))
