"""REVECA's side-tables in `memory.notes`: relevance levels, agent histories, pending questions.

The belief (semantic memory) belongs to the environment and the vector store to the memory package, so
what REVECA adds on top — a relevance level per object and message, its own interactions, partner
sightings, the question it is waiting on — lives in one typed record, the `reveca` channel of the agent's graph state.
Keeping it in one dataclass (rather than loose dict keys) lets every REVECA node share one vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from coopgraph.memory.levels import LEVELS, RANK
from coopgraph.memory.levels import Relevance as Level
from coopgraph.nodes.state import channel

__all__ = ["LEVELS", "RANK", "Level", "PendingQuestion", "RevecaNotes", "Sighting", "Touch", "message_key",
           "reveca_notes"]
NOTES_KEY = "reveca"


@dataclass
class Sighting:
    """Where a partner was at a step: seen (exact position) or told (room only, from its message)."""

    step: int
    position: tuple[float, float] | None
    room_id: int | None
    source: Literal["seen", "told"] = "seen"


@dataclass
class Touch:
    """Something this agent did to an object: took it, put it somewhere, or looked inside it."""

    step: int
    verb: Literal["took", "put", "checked"]
    label: str
    where: str | None = None  # for "put": the label of the surface or container


@dataclass
class PendingQuestion:
    """A validation question in flight: the plan it guards and when the wait runs out."""

    target_id: int
    target_label: str
    plan: Any  # the Affordance that will run if the partner says nothing changed
    asked_step: int
    deadline: int


@dataclass
class RevecaNotes:
    """Everything REVECA remembers beyond the shared belief, per agent and episode."""

    relevance: dict[int, str] = field(default_factory=dict)  # object id -> level
    rated_lines: dict[int, str] = field(default_factory=dict)  # object id -> the sighting line last rated
    message_relevance: dict[str, str] = field(default_factory=dict)  # message key -> level
    tracks: dict[str, list[Sighting]] = field(default_factory=dict)  # partner id -> sightings, oldest first
    touched: dict[int, Touch] = field(default_factory=dict)  # object id -> this agent's last interaction
    unannounced_puts: list[str] = field(default_factory=list)  # "<plate> (3) on <table> (9)" not yet told
    answered: set[str] = field(default_factory=set)  # message keys of questions already answered
    pending: PendingQuestion | None = None
    confirmed: dict[int, int] = field(default_factory=dict)  # object id -> step a partner said "unchanged"
    discarded: dict[int, int] = field(default_factory=dict)  # object id -> step a change was confirmed
    started: bool = False  # the start-up exchange has been sent
    questions_asked: int = 0


REVECA = channel(NOTES_KEY, RevecaNotes, RevecaNotes, "REVECA's relevance ratings, partner tracks and questions",
                 family="reveca")


def reveca_notes(memory: Any) -> RevecaNotes:
    """The agent's REVECA record (the `reveca` channel; a node using it names `reveca` in its writes)."""
    notes: RevecaNotes = memory.channel(REVECA, RevecaNotes)
    return notes


def message_key(sender: str, step: int, text: str) -> str:
    """A stable key for one received message (who, when, what)."""
    return f"{sender}|{step}|{text}"
