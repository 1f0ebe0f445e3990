"""Walking in the kitchen as LLM-Co's action manager measures it: BFS distances, "blocked by", paths.

Two rules differ on purpose, as in LLM-Co. For a *distance* the partner's cell may be entered only as the last
cell (so a target whose one free side is where the partner stands reads "blocked by" the partner); for a *path*
the partner is a wall. An open gate is floor for both. The world's belief, its action list, its skill book and
its scripted cooks all call these functions, so they never disagree about what is near.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from coopgraph.envs.overcooked.kitchen import Kitchen
from coopgraph.envs.overcooked.layouts import Cell

#: BFS expansion order (up, down, right, left), which decides between paths of equal length as LLM-Co's does.
_EXPAND: tuple[Cell, ...] = ((0, -1), (0, 1), (1, 0), (-1, 0))


@dataclass(frozen=True)
class Reach:
    """How far a place is for one cook: `distance` steps, or blocked by the partner, or inaccessible."""

    distance: int | None = None
    blocked: bool = False

    @property
    def reachable(self) -> bool:
        """Not inaccessible (LLM-Co offers blocked targets too)."""
        return self.distance is not None or self.blocked

    def text(self, label: str, partner: str) -> str:
        """LLM-Co's sentence: `o0 is 3 units away.`, `p0 is blocked by Bob.`, `d1 is inaccessible.`"""
        if self.distance is not None:
            return f"{label} is {self.distance} units away."
        if self.blocked:
            return f"{label} is blocked by {partner}."
        return f"{label} is inaccessible."

    def sort_key(self) -> float:
        """Nearest first; blocked after every measured distance, inaccessible last."""
        if self.distance is not None:
            return float(self.distance)
        return 1_000.0 if self.blocked else float("inf")


INACCESSIBLE = Reach()
BLOCKED = Reach(blocked=True)


def step_distances(kitchen: Kitchen, start: Cell, partner: Cell | None,
                   open_gates: frozenset[Cell] = frozenset()) -> dict[Cell, int]:
    """Steps from `start` to every cell it can reach; the partner's cell is reached but never walked through."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == partner:
            continue
        for dx, dy in _EXPAND:
            nxt = (cell[0] + dx, cell[1] + dy)
            if nxt not in seen and kitchen.walkable(nxt, open_gates):
                seen[nxt] = seen[cell] + 1
                queue.append(nxt)
    return seen


def reach(kitchen: Kitchen, target: Cell, partner: Cell | None, steps: dict[Cell, int],
          open_gates: frozenset[Cell] = frozenset()) -> Reach:
    """How far `target` is, given `steps` from `step_distances`: the nearest free side not the partner's cell; if
    only the partner's cell is reachable, blocked; if no side is reachable (or none is floor), inaccessible."""
    sides = [c for c in kitchen.around(target) if kitchen.walkable(c, open_gates)]
    others = [steps[c] for c in sides if c != partner and c in steps]
    if others:
        return Reach(distance=min(others))
    if partner in sides and partner in steps:
        return BLOCKED
    return INACCESSIBLE


def free_sides(kitchen: Kitchen, target: Cell, partner: Cell | None,
               open_gates: frozenset[Cell] = frozenset()) -> list[Cell]:
    """The cells a cook may stand on to use `target`: its walkable sides, north, south, west, east, minus the
    partner's cell (LLM-Co's candidate cells)."""
    return [c for c in kitchen.around(target) if kitchen.walkable(c, open_gates) and c != partner]


def first_step(kitchen: Kitchen, start: Cell, goals: Sequence[Cell], partner: Cell | None,
               open_gates: frozenset[Cell] = frozenset()) -> Cell | None:
    """The first move (dx, dy) toward the first of `goals` that has a path, the partner being a wall (LLM-Co takes
    the first candidate with a path, not the nearest); None when no goal can be reached."""
    parent: dict[Cell, Cell | None] = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for dx, dy in _EXPAND:
            nxt = (cell[0] + dx, cell[1] + dy)
            if nxt not in parent and nxt != partner and kitchen.walkable(nxt, open_gates):
                parent[nxt] = cell
                queue.append(nxt)
    for goal in goals:
        if goal == start or goal not in parent:
            continue
        cell = goal
        while parent[cell] != start:
            cell = parent[cell]  # type: ignore[assignment]
        return (cell[0] - start[0], cell[1] - start[1])
    return None
