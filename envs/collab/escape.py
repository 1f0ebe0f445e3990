"""Collab Escape's rules as pure functions: the killer's choice, fixes, moves, and loss before win.

A turn: the killer decides first, from where everyone stands (a player in a room its list links to is seen:
exactly one seen, it goes for that one's room; both seen, it keeps its target, Alice on a first sighting; none,
a random neighbour from the episode's seeded generator). Then each player moves along its room's list, fixes the
generator of its room, or waits. A generator is repaired by two fixes in consecutive turns, or by both players
fixing it in the same turn; a turn in which nobody fixes an unrepaired generator sets it back to no fixes. The
killer moves; a player sharing its room loses the game (checked first); both generators repaired and a player in
the exit room wins it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Literal

from coopgraph.envs.collab.maps import EXIT_ROOM, FIXES_NEEDED, GENERATOR_ROOMS, Adjacency

PLAYER_NAMES: tuple[str, str] = ("Alice", "Bob")
Outcome = Literal["playing", "caught", "escaped"]


@dataclass(frozen=True)
class EscapeState:
    """Where everyone is, each generator's fixes so far, who fixed last turn, and whom the killer hunts."""

    players: tuple[int, int]
    killer: int
    fixes: tuple[tuple[int, int], ...] = tuple((room, 0) for room in GENERATOR_ROOMS)
    fixing: tuple[bool, bool] = (False, False)
    target: int | None = None  # the player index the killer last went for

    @property
    def generator_fixes(self) -> dict[int, int]:
        return dict(self.fixes)

    def repaired(self, room: int) -> bool:
        return self.generator_fixes.get(room, 0) >= FIXES_NEEDED

    @property
    def exit_open(self) -> bool:
        return all(self.repaired(room) for room in GENERATOR_ROOMS)


@dataclass(frozen=True)
class KillerPlan:
    """The killer's decision for this turn: its next room, and the player it chases (None: it wanders)."""

    room: int
    chasing: int | None


@dataclass(frozen=True)
class EscapeMove:
    """One player's turn: wait, move to `room`, or fix the generator in `room` (its own)."""

    kind: Literal["wait", "move", "fix"] = "wait"
    room: int | None = None


def killer_plan(state: EscapeState, graph: Adjacency, rng: random.Random) -> KillerPlan:
    """The killer's choice from the positions at the start of the turn (draws from `rng` only when wandering)."""
    near = graph[state.killer]
    seen = [i for i, room in enumerate(state.players) if room in near]
    if len(seen) == 1:
        return KillerPlan(state.players[seen[0]], seen[0])
    if len(seen) == 2:
        target = state.target if state.target is not None else 0
        return KillerPlan(state.players[target], target)
    return KillerPlan(rng.choice(near), None)


def valid(state: EscapeState, graph: Adjacency, index: int, move: EscapeMove) -> bool:
    """Whether the move is open to player `index` (an invalid one is a wait)."""
    here = state.players[index]
    if move.kind == "move":
        return move.room in graph[here]
    if move.kind == "fix":
        return move.room == here and here in GENERATOR_ROOMS and not state.repaired(here)
    return True


def step(state: EscapeState, graph: Adjacency, plan: KillerPlan,
         moves: tuple[EscapeMove, EscapeMove]) -> tuple[EscapeState, Outcome]:
    """One turn with the killer's `plan` already made; invalid moves are waits. Returns the state and outcome."""
    moves = tuple(m if valid(state, graph, i, m) else EscapeMove() for i, m in enumerate(moves))  # type: ignore[assignment]
    fixes = state.generator_fixes
    fixed_now = [state.players[i] for i, m in enumerate(moves) if m.kind == "fix"]
    for room in GENERATOR_ROOMS:
        if fixes[room] >= FIXES_NEEDED:
            continue
        fixes[room] = fixes[room] + fixed_now.count(room) if room in fixed_now else 0
    players = tuple(m.room if m.kind == "move" and m.room is not None else state.players[i]
                    for i, m in enumerate(moves))
    after = replace(state, players=players, killer=plan.room, fixes=tuple(sorted(fixes.items())),  # type: ignore[arg-type]
                    fixing=(moves[0].kind == "fix", moves[1].kind == "fix"),
                    target=plan.chasing if plan.chasing is not None else state.target)
    if after.killer in after.players:
        return after, "caught"
    if after.exit_open and EXIT_ROOM in after.players:
        return after, "escaped"
    return after, "playing"


def killer_words(state: EscapeState, plan: KillerPlan) -> str:
    """What both players are told about the killer before they choose (the facts of the reference's
    `killer_info`, in this project's words): where it is, and whom it will surely go for, if anyone."""
    head = f"The killer is in room {state.killer} now"
    if plan.chasing is None:
        return head + "; it does not know where we are, and where it goes next is unknown."
    return head + f" and will surely go next to the room {PLAYER_NAMES[plan.chasing]} is in."
