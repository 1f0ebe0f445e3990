"""The Capture planner: the fewest turns to a capture, searched over joint moves against the known thief policy.

The thief's policy is deterministic and public, and the state space is small (nine rooms for each of three
characters, four door settings), so a breadth-first search over both players' moves finds the shortest capture
from any state. Both players run the same search on the same state and each plays its own half of the first joint
move, which is the convention that lets them coordinate without talking. Ties go to the first joint move in the
players' option order (stay, moves in map order, press).
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from coopgraph.envs.collab import capture
from coopgraph.envs.collab.capture import CaptureMove, CaptureState, Distance
from coopgraph.envs.collab.maps import button_door

JointMove = tuple[CaptureMove, CaptureMove]


def options(state: CaptureState, index: int) -> list[CaptureMove]:
    """Player `index`'s moves in the affordance order: stay, each open neighbour, press where there is a button."""
    here = state.players[index]
    moves = [CaptureMove()] + [CaptureMove("move", room) for room in capture.accessible(state, here)]
    if button_door(here) is not None:
        moves.append(CaptureMove("press"))
    return moves


def joint_moves(state: CaptureState) -> list[JointMove]:
    return [(a, b) for a in options(state, 0) for b in options(state, 1)]


@lru_cache(maxsize=4096)
def plan(state: CaptureState, distance: Distance = "number", limit: int = 30) -> tuple[JointMove, ...]:
    """The shortest sequence of joint moves that captures the thief within `limit` turns (empty: none does)."""
    first: dict[CaptureState, tuple[JointMove, ...]] = {state: ()}
    queue = deque([state])
    while queue:
        now = queue.popleft()
        path = first[now]
        if len(path) >= limit:
            continue
        for joint in joint_moves(now):
            after, caught = capture.step(now, joint, distance)
            if caught:
                return (*path, joint)
            if after not in first:
                first[after] = (*path, joint)
                queue.append(after)
    return ()


def turns_to_capture(state: CaptureState, distance: Distance = "number", limit: int = 30) -> int | None:
    """How many turns the best joint play needs to catch the thief (None: not within `limit`)."""
    found = plan(state, distance, limit)
    return len(found) if found else None


def best_move(state: CaptureState, index: int, distance: Distance = "number") -> CaptureMove:
    """Player `index`'s half of the first best joint move (a chase toward the thief when no capture is in reach)."""
    found = plan(state, distance)
    if found:
        return found[0][index]
    return chase(state, index)


def chase(state: CaptureState, index: int) -> CaptureMove:
    """The move that brings player `index` closest (in moves) to the thief's room; staying when none is closer."""
    here = state.players[index]
    best, best_apart = CaptureMove(), capture.moves_apart(state, here, state.thief)
    for room in capture.accessible(state, here):
        apart = capture.moves_apart(state, room, state.thief)
        if apart < best_apart:
            best, best_apart = CaptureMove("move", room), apart
    return best
