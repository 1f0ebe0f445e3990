"""User studies as suites (`kind: user-study`): partner conditions in counterbalanced order per participant.

Each team of the suite is one partner condition (e.g. CoELA, CoELA without communication, MHP) with one `human`
member, the participant's seat. Participants are numbered in the order they first play (their ordinal); ordinal k
takes row k of a balanced Latin square over the n conditions (Williams' design: every condition comes first equally
often and follows every other equally often; n rows for even n, 2n for odd n, cycled), and their session i plays
that row's i-th condition on the suite's i-th episode (cycling the episodes). A participant's rows are stored with
`repeat` = their ordinal, so every participant is a replicate of each condition, and with a `study` column holding
the participant id, the session and the ratings; nothing else about a person is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import Suite, Team

PARTICIPANT = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class StudyError(ValueError):
    """A study request that cannot be served (bad participant id, not a user-study suite)."""


def balanced_latin_square(n: int) -> list[list[int]]:
    """Williams' design: orders of 0..n-1 in which every condition precedes every other equally often (n rows for
    even n, 2n for odd n)."""
    first = [0]
    low, high = 1, n - 1
    for i in range(1, n):
        if i % 2:
            first.append(low)
            low += 1
        else:
            first.append(high)
            high -= 1
    rows = [[(c + r) % n for c in first] for r in range(n)]
    return rows if n % 2 == 0 else rows + [row[::-1] for row in rows]  # odd n: the mirrored rows balance it


@dataclass(frozen=True)
class Session:
    """One episode a participant owes: which condition (team), on which episode, as their i-th session."""

    participant: str
    ordinal: int
    index: int
    team: Team
    episode: str
    seed: int

    @property
    def study(self) -> dict[str, Any]:
        return {"participant": self.participant, "ordinal": self.ordinal, "session": self.index}


def check_participant(participant: str) -> str:
    if not PARTICIPANT.match(participant):
        raise StudyError(f"--participant {participant[:40]!r}: use a short code of letters, digits, - or _ (up to 32, "
                         "e.g. P7); a study keeps no personal data beyond this id")
    return participant


def check_study(suite: Suite, path: str) -> Suite:
    if suite.kind != "user-study":
        raise StudyError(f"{path} is a {suite.kind} suite; --study takes a suite with `kind: user-study`")
    return suite


def _study_rows(store: ResultStore, suite: Suite) -> list[dict[str, Any]]:
    return [r for r in store.rows(suite=suite.name, status=None) if isinstance(r.get("study"), dict)]


def ordinal_of(store: ResultStore, suite: Suite, participant: str) -> int:
    """The participant's number: the one their rows carry, else the next free one."""
    rows = _study_rows(store, suite)
    known = {r["study"]["participant"]: int(r["study"]["ordinal"]) for r in rows}
    return known.get(participant, max(known.values(), default=-1) + 1)


def schedule(suite: Suite, participant: str, ordinal: int) -> list[Session]:
    """The participant's sessions in order: one per condition, in their Latin-square row's order."""
    square = balanced_latin_square(len(suite.teams))
    episodes = suite.episode_ids()
    row = square[ordinal % len(square)]
    return [Session(participant, ordinal, i, suite.teams[c], episodes[i % len(episodes)], suite.seeds[0])
            for i, c in enumerate(row)]


def next_session(store: ResultStore, suite: Suite, participant: str) -> Session | None:
    """The first session of the participant's schedule without a finished row (None: they have done all); an
    abandoned or interrupted session is offered again from its start."""
    ordinal = ordinal_of(store, suite, participant)
    done = {(r["team"], r["episode"]) for r in _study_rows(store, suite)
            if r["study"]["participant"] == participant and r["status"] == "done"}
    return next((s for s in schedule(suite, participant, ordinal) if (s.team.label, s.episode) not in done), None)
