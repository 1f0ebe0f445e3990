"""CoELA's user-study questions after an episode, and where the answers are kept: in the run's own trace.

The answers are appended to the trace as one `ratings` event (helpfulness and trust of the partner on 1-7, a free
comment, and the participant id when a study names one; nothing else about the person), so they travel with the
run and `coopgraph report` can read them from the store's trace paths.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from coopgraph.record.trace_file import Tracer, read_events

#: The questions as the page asks them (CoELA's user study: a 7-point scale for each).
QUESTIONS: dict[str, str] = {
    "helpfulness": "How helpful was your partner? (1: not at all, 7: very)",
    "trust": "How much did you trust your partner? (1: not at all, 7: completely)",
}
COMMENT_LIMIT = 1000


class Ratings(BaseModel):
    """One person's answers about their partner after one episode."""

    helpfulness: int = Field(ge=1, le=7)
    trust: int = Field(ge=1, le=7)
    comment: str = Field(default="", max_length=COMMENT_LIMIT)


def store_ratings(trace: str | Path, ratings: Ratings, agent: str, participant: str | None = None) -> None:
    """Append the `ratings` event to the run's trace (one whole line, flushed, like every event)."""
    tracer = Tracer(trace)
    try:
        tracer.event("ratings", agent=agent, participant=participant, **ratings.model_dump())
    finally:
        tracer.close()


def read_ratings(trace: str | Path) -> dict[str, object] | None:
    """The run's last `ratings` event, or None when the person gave none."""
    found = [e for e in read_events(trace) if e.get("type") == "ratings"]
    return found[-1] if found else None
