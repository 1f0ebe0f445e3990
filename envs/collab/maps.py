"""The room graphs of the two games, as LLM-Co's reference code and its prompts give them.

Capture's graph is undirected; two of its links have doors, each toggled by a button in another room. Escape's
graph as coded is a directed adjacency list (room 7 lists 3 but room 3 does not list 7; room 8 lists 7 but room 7
does not list 8); the prompt describes a different, undirected graph (7-8 linked, no 3-7 link). Both are kept,
the coded one is the default (`docs/envs/collab.md`).
"""

from __future__ import annotations

from typing import Literal

Adjacency = dict[int, tuple[int, ...]]
Door = tuple[int, int]

#: Collab Capture's rooms, each with its neighbours in the reference's list order (the thief's tie order).
CAPTURE_ROOMS: Adjacency = {1: (2, 6), 2: (1, 3), 3: (2, 4), 4: (3, 5), 5: (4, 6, 7), 6: (5, 9, 1), 7: (5, 8),
                            8: (7,), 9: (6,)}
#: Each door (its two rooms, smaller first) and the room of the button that toggles it.
CAPTURE_BUTTONS: dict[Door, int] = {(1, 2): 9, (3, 4): 8}

EscapeGraph = Literal["coded", "described"]
#: Collab Escape's rooms as the reference code links them (directed in two places).
ESCAPE_CODED: Adjacency = {1: (2, 10), 2: (1, 3), 3: (2, 4, 8), 4: (3, 5), 5: (4, 6), 6: (5, 7), 7: (3, 6),
                           8: (3, 7, 9), 9: (8, 10), 10: (1, 9)}
#: Collab Escape's rooms as the reference prompt describes them (undirected: 7-8 linked, 3-7 not).
ESCAPE_DESCRIBED: Adjacency = {1: (2, 10), 2: (1, 3), 3: (2, 4, 8), 4: (3, 5), 5: (4, 6), 6: (5, 7), 7: (6, 8),
                               8: (3, 7, 9), 9: (8, 10), 10: (1, 9)}
ESCAPE_GRAPHS: dict[str, Adjacency] = {"coded": ESCAPE_CODED, "described": ESCAPE_DESCRIBED}
GENERATOR_ROOMS: tuple[int, ...] = (1, 6)
EXIT_ROOM = 7
FIXES_NEEDED = 2


def door_of(a: int, b: int) -> Door | None:
    """The door on the link a-b, or None when the link has none."""
    key = (min(a, b), max(a, b))
    return key if key in CAPTURE_BUTTONS else None


def button_door(room: int) -> Door | None:
    """The door the button in `room` toggles, or None when the room has no button."""
    return next((door for door, button in CAPTURE_BUTTONS.items() if button == room), None)


def escape_graph(name: str) -> Adjacency:
    """The Escape graph named `name` (`coded` or `described`); the error lists both."""
    if name not in ESCAPE_GRAPHS:
        raise ValueError(f"unknown Collab Escape graph {name!r}; graphs: {', '.join(ESCAPE_GRAPHS)}")
    return ESCAPE_GRAPHS[name]
