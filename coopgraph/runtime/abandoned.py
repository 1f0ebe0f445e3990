"""An episode a seated person left before its end: a way a run ends, so it lives with the runtime.

The play layer raises it when its seat is left; an evaluation that runs played sessions (a user study's) catches
it to mark the session's row abandoned, without importing the play layer.
"""

from __future__ import annotations

from pathlib import Path


class PlayAbandoned(RuntimeError):
    """The person left before the episode ended; the trace is kept, marked with an `abandoned` event."""

    def __init__(self, trace: Path, step: int | None) -> None:
        super().__init__(f"the episode was abandoned at step {step}; its trace is kept, marked abandoned: {trace}")
        self.trace, self.step = trace, step
