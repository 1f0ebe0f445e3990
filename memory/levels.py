"""REVECA's relevance levels (strong/medium/low/none) and their order: one definition, without heavy imports.

The vector store keeps a level on each entry and filters on its rank; REVECA's nodes rate, sort and filter by
the same levels. This module imports nothing, so the node library can use it without loading Chroma.
"""

from __future__ import annotations

from typing import Literal, get_args

Relevance = Literal["strong", "medium", "low", "none"]
#: The levels, most relevant first.
LEVELS: tuple[str, ...] = get_args(Relevance)
#: Each level's rank: higher matters more.
RANK: dict[str, int] = {"none": 0, "low": 1, "medium": 2, "strong": 3}
