"""What an Overcooked cook observes each tick: the whole kitchen (it is fully observable), as typed data.

Positions are `(x, y)` cells, `y` growing southward; held things use LLM-Co's words (`onion`, `plate`, `soup in
plate`). The static terrain rides along as `grid` so a belief never needs the environment object.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.overcooked.layouts import Cell
from coopgraph.envs.overcooked.upstream import Direction
from coopgraph.envs.protocol import Observation

Held = Literal["onion", "tomato", "plate", "soup in plate"]
Facing = Literal["north", "south", "east", "west"]
FACING: dict[Cell, Facing] = {Direction.NORTH: "north", Direction.SOUTH: "south", Direction.EAST: "east",
                              Direction.WEST: "west"}
#: overcooked-ai's object names in LLM-Co's words.
HELD_WORDS: dict[str, Held] = {"onion": "onion", "tomato": "tomato", "dish": "plate", "soup": "soup in plate"}


class CookView(BaseModel):
    """A cook as seen this tick."""

    model_config = ConfigDict(frozen=True)

    agent_id: str
    name: str
    position: Cell
    facing: Facing
    holding: Held | None = None


class PotView(BaseModel):
    """One pot: how many onions it holds and how its soup stands (`cook_ticks` counts up from 0 once cooking)."""

    model_config = ConfigDict(frozen=True)

    position: Cell
    onions: int = 0
    cooking: bool = False
    ready: bool = False
    cook_ticks: int = 0
    ticks_left: int = 0


class CounterView(BaseModel):
    """A counter with something on it."""

    model_config = ConfigDict(frozen=True)

    position: Cell
    item: Held


class GateView(BaseModel):
    """A gate: open or closed, and for an open one how many ticks it has been open (LLM-Co's timer)."""

    model_config = ConfigDict(frozen=True)

    position: Cell
    open: bool = False
    timer: int = 0


class OvercookedObservation(Observation):
    """One cook's view of the kitchen after a tick."""

    layout: str
    grid: tuple[str, ...] = Field(description="the terrain rows (players' start cells are floor)")
    room: str = "kitchen"
    room_id: int = 0
    position: Cell
    facing: Facing
    holding: Held | None = None
    partners: list[CookView] = Field(default_factory=list)
    pots: list[PotView] = Field(default_factory=list)
    counters: list[CounterView] = Field(default_factory=list)
    gates: list[GateView] = Field(default_factory=list)
    score: int = 0
    deliveries: int = 0

    @property
    def open_gates(self) -> frozenset[Cell]:
        return frozenset(g.position for g in self.gates if g.open)

    def counter_item(self, cell: Cell) -> Held | None:
        """What lies on the counter at `cell`, or None."""
        return next((c.item for c in self.counters if c.position == cell), None)
