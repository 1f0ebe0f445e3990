"""The Overcooked layouts coopgraph ships, found by name and read safely, with errors that point at the bad cell.

Three sets are shipped under `layouts/`: LLM-Co's 54 files (`layouts/llmco/`, the default names: `cramped_room`,
the Overcooked-Assist `no_counter_door` and `soup_passing_door`, ...), overcooked-ai 1.1.0's own 45
(`layouts/overcooked_ai/`, named `overcooked_ai/<name>`: its `asymmetric_advantages` is the narrower map of the
PPO/PBT papers) and coopgraph's own training kitchens (`layouts/coopgraph/`, named `coopgraph/<name>`: divided,
passing and gated kitchens unlike the paper's seven, for the kitchen planner's data). A path to a `.layout` file
works too. Files are parsed with `ast`, never evaluated, and only the grid and the optional `shared_counters`
(coopgraph's key: the `[x, y]` counters LLM-Co's state calls `s`) are read: every layout plays by the paper's rules
(see `mdp.py`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LAYOUT_DIR = Path(__file__).with_name("layouts")
DEFAULT_SET = "llmco"
PLAYERS = "123456789"
#: Every cell a layout may hold, and what it is.
CELLS = {"X": "counter", "O": "onion dispenser", "T": "tomato dispenser", "P": "pot", "D": "dish dispenser",
         "S": "serving spot", "W": "wall", "G": "gate", " ": "floor", **{p: f"player {p}" for p in PLAYERS}}
#: Cells that may stand on the border (a player or the floor there would let agents walk off the map).
BORDER_CELLS = set("XOTPDSW")

Cell = tuple[int, int]


class UnknownLayoutError(ValueError):
    """A layout name that is not shipped; the message lists the shipped ones."""


class LayoutError(ValueError):
    """A malformed layout file; the message names the file, the line and (where there is one) the bad cell."""


@dataclass(frozen=True)
class Layout:
    """A parsed layout: its terrain rows (players' start cells are floor) and where players 1, 2, ... start."""

    name: str
    path: Path
    terrain: tuple[str, ...]
    starts: tuple[Cell, ...]
    #: Counters the file declares shared (`s` in LLM-Co's state); empty when it declares none.
    shared_counters: tuple[Cell, ...] = ()

    @property
    def episode_id(self) -> str:
        """The layout's name, as result tables read an episode's id."""
        return self.name

    @property
    def width(self) -> int:
        return len(self.terrain[0])

    @property
    def height(self) -> int:
        return len(self.terrain)


#: The layouts LLM-Co reports: the five classic ones (table 1) and the two gated Overcooked-Assist ones (tables
#: 3-4: `no_counter_door` is Gated Delivery, `soup_passing_door` is Locked).
PAPER_LAYOUTS = ("cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination",
                 "counter_circuit_o_1order", "no_counter_door", "soup_passing_door")


#: A layout whose grid differs from a paper layout's (or its mirror's) in at most this many cells is the same
#: kitchen: LLM-Co's set ships the paper's under old names (`simple` is cramped_room, `random0` forced_coordination)
#: and with a dispenser swapped (`cramped_room_tomato`), and their states are the test layouts' own.
COPY_CELLS = 3


def _cells_apart(a: tuple[str, ...], b: tuple[str, ...]) -> int | None:
    if len(a) != len(b) or any(len(ra) != len(rb) for ra, rb in zip(a, b, strict=True)):
        return None
    return sum(ca != cb for ra, rb in zip(a, b, strict=True) for ca, cb in zip(ra, rb, strict=True))


def paper_copy(name: str) -> str | None:
    """The paper layout that `name` is, or copies up to a few cells or a mirror (None for another kitchen), so a
    training set can leave out everything the paper's seven would be tested on."""
    terrain = tuple(load_layout(name).terrain)
    views = (terrain, tuple(row[::-1] for row in terrain), terrain[::-1])
    for paper in PAPER_LAYOUTS:
        grid = tuple(load_layout(paper).terrain)
        if any((apart := _cells_apart(view, grid)) is not None and apart <= COPY_CELLS for view in views):
            return paper
    return None


def layout_names() -> list[str]:
    """Every shipped layout name: LLM-Co's by their own name, overcooked-ai 1.1.0's as `overcooked_ai/<name>`."""
    names = [p.stem for p in (LAYOUT_DIR / DEFAULT_SET).glob("*.layout")]
    for folder in sorted(p for p in LAYOUT_DIR.iterdir() if p.is_dir() and p.name != DEFAULT_SET):
        names += [f"{folder.name}/{p.stem}" for p in folder.glob("*.layout")]
    return sorted(names)


def layout_path(name: str) -> Path:
    """The file of a shipped layout name, or `name` itself when it is a path to a `.layout` file."""
    if name.endswith(".layout") and Path(name).is_file():
        return Path(name)
    folder, _, stem = name.rpartition("/")
    path = LAYOUT_DIR / (folder or DEFAULT_SET) / f"{stem}.layout"
    if "/" in stem or ".." in name or not path.is_file():
        raise UnknownLayoutError(f"unknown Overcooked layout {name!r}; shipped: {', '.join(layout_names())} "
                                 "(or a path to a .layout file)")
    return path


def load_layout(name: str) -> Layout:
    """The layout `name` (shipped name or file path), parsed and checked."""
    path = layout_path(name)
    return _parse_cached(str(path.resolve()), path.stem if name.endswith(".layout") else name)


@lru_cache(maxsize=128)
def _parse_cached(path: str, name: str) -> Layout:
    return parse_layout(Path(path), name)


def _entries(path: Path, text: str) -> dict[str, ast.expr]:
    """The layout dict's entries by key: parsed, never evaluated (entries other than ours, such as
    `float('inf')`, are not read)."""
    try:
        tree = ast.parse(text, filename=str(path), mode="eval")
    except SyntaxError as exc:
        raise LayoutError(f"{path}:{exc.lineno}: not a layout ({exc.msg}); a layout is a dict with a "
                          "\"grid\" string") from None
    if not isinstance(tree.body, ast.Dict):
        raise LayoutError(f"{path}:{tree.body.lineno}: a layout is a dict with a \"grid\" string")
    entries = {key.value: value for key, value in zip(tree.body.keys, tree.body.values, strict=True)
               if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    if "grid" not in entries:
        raise LayoutError(f"{path}:{tree.body.lineno}: the layout has no \"grid\" entry")
    return entries


def _grid_node(path: Path, entries: dict[str, ast.expr]) -> ast.Constant:
    value = entries["grid"]
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        raise LayoutError(f"{path}:{value.lineno}: \"grid\" must be a string of rows")
    return value


def _shared_counters(path: Path, entries: dict[str, ast.expr], terrain: tuple[str, ...]) -> tuple[Cell, ...]:
    """The declared shared counters: a list of `[x, y]` cells, each a counter (`X`) of the grid."""
    node = entries.get("shared_counters")
    if node is None:
        return ()
    try:
        value = ast.literal_eval(node)
    except ValueError:
        value = None
    shape = "a list of [x, y] counter cells"
    if not (isinstance(value, list | tuple) and all(isinstance(c, list | tuple) and len(c) == 2
                                                    and all(isinstance(v, int) for v in c) for c in value)):
        raise LayoutError(f"{path}:{node.lineno}: \"shared_counters\" must be {shape}")
    cells: list[Cell] = []
    for x, y in value:
        inside = 0 <= y < len(terrain) and 0 <= x < len(terrain[0])
        if not inside or terrain[y][x] != "X":
            found = repr(terrain[y][x]) if inside else "outside the grid"
            raise LayoutError(f"{path}:{node.lineno}: shared counter [{x}, {y}] is {found}; "
                              f"\"shared_counters\" must be {shape}")
        cells.append((x, y))
    return tuple(cells)


def parse_layout(path: Path, name: str | None = None) -> Layout:
    """Read and check one layout file; a `LayoutError` names the file, the line and the bad cell."""
    text = path.read_text()
    entries = _entries(path, text)
    node = _grid_node(path, entries)
    first_line = text.splitlines()[node.lineno - 1]
    quote = 3 if first_line[node.col_offset:node.col_offset + 3] in ('"""', "'''") else 1
    grid = str(node.value)  # checked to be a string by _grid_node
    raw_rows = grid.split("\n")
    rows = [row.strip() for row in raw_rows]

    def where(y: int, x: int | None = None) -> str:
        line = node.lineno + y
        if x is None:
            return f"{path}:{line}"
        lead = len(raw_rows[y]) - len(raw_rows[y].lstrip())
        column = (node.col_offset + quote if y == 0 else 0) + lead + x + 1
        return f"{path}:{line}:{column}"

    if not rows or not rows[0]:
        raise LayoutError(f"{where(0)}: the grid is empty")
    width = len(rows[0])
    starts: dict[str, Cell] = {}
    for y, row in enumerate(rows):
        if len(row) != width:
            raise LayoutError(f"{where(y)}: grid row {y} {row!r} is {len(row)} cells wide, row 0 is {width}")
        for x, cell in enumerate(row):
            if cell not in CELLS:
                raise LayoutError(f"{where(y, x)}: bad cell {cell!r} at x={x}, y={y} in row {row!r}; cells are "
                                  + ", ".join(f"{c!r} {what}" for c, what in CELLS.items() if c not in PLAYERS)
                                  + ", '1'-'9' players")
            on_border = x in (0, width - 1) or y in (0, len(rows) - 1)
            if on_border and cell not in BORDER_CELLS:
                border = "".join(sorted(BORDER_CELLS))
                raise LayoutError(f"{where(y, x)}: bad cell {cell!r} at x={x}, y={y} on the border (a "
                                  f"{CELLS[cell]} there leads off the map); border cells are {border}")
            if cell in PLAYERS:
                if cell in starts:
                    raise LayoutError(f"{where(y, x)}: bad cell {cell!r} at x={x}, y={y}: player {cell} already "
                                      f"starts at {starts[cell]}")
                starts[cell] = (x, y)
    players = sorted(starts)
    if players != list(PLAYERS[: len(players)]) or not players:
        raise LayoutError(f"{where(0)}: players must be numbered 1, 2, ... without gaps; the grid has "
                          f"{', '.join(players) or 'none'}")
    terrain = tuple("".join(" " if cell in PLAYERS else cell for cell in row) for row in rows)
    return Layout(name=name or path.stem, path=path, terrain=terrain, starts=tuple(starts[p] for p in players),
                  shared_counters=_shared_counters(path, entries, terrain))
