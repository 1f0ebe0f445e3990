"""REVECA's relevance levels (strong/medium/low/none) and their order: one definition, without heavy imports.

The vector store keeps a level on each entry and filters on its rank; REVECA's nodes rate, sort and filter by
the same levels. The paper uses R=4 levels and ablates R=3 and R=5 (table 4, naming only the count); the sets
for 3 and 5 are this project's (`LEVEL_SETS`), drawn from one scale so that every rank compares across sets.
This module imports nothing, so the node library can use it without loading Chroma.
"""

from __future__ import annotations

from typing import Literal

Relevance = Literal["very strong", "strong", "medium", "low", "none"]
#: The paper's four levels, most relevant first (R=4, the default).
LEVELS: tuple[str, ...] = ("strong", "medium", "low", "none")
#: Level sets by size R, most relevant first: the paper's R=4, and the project's R=3 and R=5 for its ablations.
LEVEL_SETS: dict[int, tuple[str, ...]] = {
    3: ("strong", "medium", "none"),
    4: LEVELS,
    5: ("very strong", "strong", "medium", "low", "none"),
}
#: Each level's rank on the common scale: higher matters more.
RANK: dict[str, int] = {"none": 0, "low": 1, "medium": 2, "strong": 3, "very strong": 4}


def in_set(level: str, levels: tuple[str, ...]) -> str:
    """`level` (from any set, e.g. a rules rating) as the nearest level of `levels`; a tie goes to the higher one,
    and "none" stays "none" (only a rating of "none" filters)."""
    if level in levels:
        return level
    if level == "none":
        return levels[-1]
    rank = RANK.get(level, 1)
    return min((lv for lv in levels if lv != "none"), key=lambda lv: (abs(RANK[lv] - rank), -RANK[lv]))
