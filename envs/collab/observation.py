"""What a player observes each turn in the two games: the whole map state (both games are fully observable).

Escape's observation also carries what the reference tells both players before they choose: the killer's
decision for the coming turn when it has seen someone (`killer_chasing`), else only that it wanders.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.protocol import Observation


class DoorView(BaseModel):
    """A Capture door: the two rooms it joins, whether it is open, and the room of its button."""

    model_config = ConfigDict(frozen=True)

    rooms: tuple[int, int]
    open: bool
    button: int


class CaptureObservation(Observation):
    """One player's view of Collab Capture after a turn."""

    room: int
    partner_room: int
    thief_room: int
    doors: list[DoorView] = Field(default_factory=list)
    caught: bool = False


class GeneratorView(BaseModel):
    """An Escape generator: its room, fixes so far (2 repair it), and whether it is repaired."""

    model_config = ConfigDict(frozen=True)

    room: int
    fixes: int
    repaired: bool


class EscapeObservation(Observation):
    """One player's view of Collab Escape before choosing: positions, generators, and what is known of the killer."""

    room: int
    partner_room: int
    killer_room: int
    killer_chasing: str | None = Field(default=None, description="the agent id the killer goes for this turn "
                                       "(None: it wanders, unaware of us)")
    killer_news: str = Field(default="", description="the sentence both players are told about the killer")
    generators: list[GeneratorView] = Field(default_factory=list)
    fixed_last_turn: bool = False
    partner_fixed_last_turn: bool = False
    exit_open: bool = False
    outcome: str = "playing"
