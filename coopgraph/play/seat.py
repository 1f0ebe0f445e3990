"""The seat: how the `human` member asks a person for a decision, whatever front end they sit at.

The episode loop calls `ask` and waits: time in the world moves only when the person answers (or their per-step
time limit runs out, which spends the step waiting). Front ends (terminal, web) implement it.
"""

from __future__ import annotations

from typing import Any, Protocol

from coopgraph.play.turn import Answer, Turn


class SeatLeft(RuntimeError):
    """The person left (their front end was closed) while the episode waited for them."""


class Seat(Protocol):
    """A front end one person sits at."""

    def ask(self, turn: Turn, limit_s: float | None) -> Answer | None:
        """The person's answer to `turn`, already checked against it; None when they gave none (the time limit ran
        out, or their input ended): the agent then waits this step."""

    def notice(self, event: dict[str, Any]) -> None:
        """Something the person may see happened (a partner's message, a step of the world)."""

    def finish(self, result: dict[str, Any]) -> None:
        """The episode ended with `result` (what `run_configured` returns)."""
