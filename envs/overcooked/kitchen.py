"""The static kitchen as LLM-Co names it: numbered places by letter (`o0`, `c1`, `k5`, `g0`) and the terrain.

LLM-Co lists each kind of place in row-major order and uses the list index as the id: `o` onion dispensers, `p`
plate (dish) dispensers, `d` delivery (serving) spots, `c` cookers (pots), `g` gates, `s` the shared counters it
hard-codes on three layouts (or a coopgraph layout declares), and `k` every other counter. The belief, the action
list, the skill book and the scripted cooks all read places through this one numbering, so a label means the same
cell everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from coopgraph.envs.overcooked.layouts import Cell, Layout

#: LLM-Co's letters, in the order its location lists are written, and the terrain cell each stands for.
LETTERS: dict[str, str] = {"o": "O", "p": "D", "d": "S", "c": "P", "s": "X", "k": "X", "g": "G"}
#: The counters LLM-Co treats as shared (`s`) on the three layouts that have them; every other counter is a `k`.
SHARED_COUNTERS: dict[str, tuple[Cell, ...]] = {
    "forced_coordination": ((2, 1), (2, 2), (2, 3)),
    "counter_circuit_o_1order": ((2, 2), (3, 2), (4, 2), (5, 2)),
    "soup_passing": ((3, 1), (3, 2), (3, 3)),
}
#: Neighbour order of LLM-Co's candidate cells around a target: north, south, west, east.
AROUND: tuple[Cell, ...] = ((0, -1), (0, 1), (-1, 0), (1, 0))
FLOOR, GATE = " ", "G"


@dataclass(frozen=True)
class Kitchen:
    """One layout's terrain and LLM-Co's numbered places (`places["o"][0]` is the cell of `o0`)."""

    layout: str
    terrain: tuple[str, ...]
    places: dict[str, tuple[Cell, ...]] = field(hash=False)

    @classmethod
    def from_layout(cls, layout: Layout) -> Kitchen:
        return cls.from_terrain(layout.name, layout.terrain, layout.shared_counters)

    @classmethod
    def from_terrain(cls, name: str, terrain: tuple[str, ...], declared: tuple[Cell, ...] = ()) -> Kitchen:
        """Number the places of `terrain`; the shared counters are those the layout file declares, else LLM-Co's
        hard-coded ones for the layout's base name."""
        cells = [(x, y) for y, row in enumerate(terrain) for x in range(len(row))]
        shared = tuple(c for c in (declared or SHARED_COUNTERS.get(name.rpartition("/")[2], ()))
                       if terrain[c[1]][c[0]] == "X")
        places = {letter: tuple(c for c in cells if terrain[c[1]][c[0]] == cell)
                  for letter, cell in LETTERS.items()}
        places["s"] = shared
        places["k"] = tuple(c for c in places["k"] if c not in shared)
        return cls(layout=name, terrain=terrain, places=places)

    @property
    def width(self) -> int:
        return len(self.terrain[0])

    @property
    def height(self) -> int:
        return len(self.terrain)

    @cached_property
    def labels(self) -> dict[Cell, str]:
        """Cell → label (`(2, 0)` → `c0`)."""
        return {cell: f"{letter}{i}" for letter, cells in self.places.items() for i, cell in enumerate(cells)}

    def cell(self, label: str) -> Cell:
        """The cell of a label such as `o0`; KeyError for a label this kitchen does not have."""
        letter, index = label[0], int(label[1:])
        cells = self.places.get(letter, ())
        if not 0 <= index < len(cells):
            raise KeyError(f"{self.layout} has no {label}")
        return cells[index]

    def ids(self, letter: str) -> list[str]:
        """Every label of one letter, in LLM-Co's order (`["o0", "o1"]`)."""
        return [f"{letter}{i}" for i in range(len(self.places.get(letter, ())))]

    def terrain_at(self, cell: Cell) -> str:
        x, y = cell
        if 0 <= y < self.height and 0 <= x < self.width:
            return self.terrain[y][x]
        return "X"

    def walkable(self, cell: Cell, open_gates: frozenset[Cell] = frozenset()) -> bool:
        """Floor, or a gate that is open."""
        kind = self.terrain_at(cell)
        return kind == FLOOR or (kind == GATE and cell in open_gates)

    @staticmethod
    def around(cell: Cell) -> list[Cell]:
        """The four neighbours of a cell, north, south, west, east."""
        return [(cell[0] + dx, cell[1] + dy) for dx, dy in AROUND]
