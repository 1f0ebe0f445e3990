"""The games' episodes, named `test/N` like the other worlds' so `--episode` picks one and the CLI's default works.

Capture is deterministic, so an episode is a start: `test/0` is the reference's (Alice in room 1, Bob in 6, the
thief in 2; door 1-2 closed, door 3-4 open); `test/1` is the start of the reference's earlier benchmark script
(Alice 1, Bob 2, thief 9, both doors open); `test/2`..`test/4` are starts of our own. Escape always starts as the
reference does (Alice 1, Bob 2, killer 6); an episode is the seed of the killer's wandering (`test/K`, combined
with the run's `--seed`).
"""

from __future__ import annotations

from dataclasses import dataclass

from coopgraph.envs.collab.capture import CaptureState, start_state

#: Capture starts: (Alice's room, Bob's room, thief's room, door 1-2 open, door 3-4 open).
CAPTURE_STARTS: tuple[tuple[int, int, int, bool, bool], ...] = (
    (1, 6, 2, False, True),
    (1, 2, 9, True, True),
    (3, 9, 7, True, True),
    (8, 4, 1, True, False),
    (6, 5, 3, False, False),
)
ESCAPE_SEEDS = 10
ESCAPE_START: tuple[int, int, int] = (1, 2, 6)  # Alice, Bob, killer


class UnknownEpisodeError(ValueError):
    """An episode name neither game has; the message lists what exists."""


@dataclass(frozen=True)
class CollabEpisode:
    """One episode: its name and its index in the game's set."""

    episode_id: str
    index: int


def _parse(game: str, name: str, count: int) -> CollabEpisode:
    known = f"test/0 .. test/{count - 1}"
    head, _, tail = name.partition("/")
    if head != "test" or not tail.isdigit() or int(tail) >= count:
        raise UnknownEpisodeError(f"unknown {game} episode {name!r}; episodes: {known}")
    return CollabEpisode(name, int(tail))


def capture_episode(name: str) -> tuple[CollabEpisode, CaptureState]:
    """The Capture episode `name` and its start state."""
    episode = _parse("Collab Capture", name, len(CAPTURE_STARTS))
    alice, bob, thief, door12, door34 = CAPTURE_STARTS[episode.index]
    return episode, start_state(alice, bob, thief, {(1, 2): door12, (3, 4): door34})


def escape_episode(name: str) -> CollabEpisode:
    """The Escape episode `name` (its index seeds the killer)."""
    return _parse("Collab Escape", name, ESCAPE_SEEDS)
