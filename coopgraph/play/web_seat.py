"""The web front end's seat: the episode thread waits here for the page's answer; the server reads and answers it.

Each turn carries a token; the first answer quoting it is taken and the token is spent, so two tabs on one agent
cannot both act. Everything the page may see is kept as a numbered log (turns, partners' messages, the clock, the
end), which server-sent events replay from any point, so a reopened tab picks up where the closed one left off.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from coopgraph.play.seat import SeatLeft
from coopgraph.play.turn import Answer, Turn

_SLICE_S = 0.25


class WebSeat:
    """Implements `Seat` for the web app; thread-safe between the episode thread and the server."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.turn: Turn | None = None
        self.result: dict[str, Any] | None = None
        self.ratings: dict[str, Any] | None = None
        self.closed = threading.Event()
        self.rated = threading.Event()
        self._answers: queue.Queue[Answer | None] = queue.Queue()
        self._lock = threading.Lock()

    def publish(self, event: dict[str, Any]) -> None:
        with self._lock:
            self.log.append({"id": len(self.log), **event})

    def ask(self, turn: Turn, limit_s: float | None) -> Answer | None:
        with self._lock:
            self.turn = turn
        self.publish({"type": "turn", "turn": turn.model_dump(mode="json"), "limit_s": limit_s})
        answer = self._wait(limit_s)
        if answer is None and not self.closed.is_set():
            self.publish({"type": "timeout", "step": turn.step, "token": turn.token})
        with self._lock:
            self.turn = None
        if answer is None and self.closed.is_set():
            raise SeatLeft("the server stopped while waiting for the person")
        return answer

    def _wait(self, limit_s: float | None) -> Answer | None:
        """The next answer, or None when `limit_s` runs out or the seat closes; waits in short slices so Ctrl-C
        reaches the main thread promptly."""
        deadline = None if limit_s is None else time.monotonic() + limit_s
        while True:
            left = _SLICE_S if deadline is None else min(_SLICE_S, deadline - time.monotonic())
            if left <= 0:
                return None
            try:
                return self._answers.get(timeout=left)
            except queue.Empty:
                continue

    def submit(self, token: str, answer: Answer) -> str | None:
        """Take `answer` for the current turn; the reason it is refused, or None when taken."""
        with self._lock:
            turn = self.turn
            if turn is None or token != turn.token:
                return "this turn is no longer open (answered in another tab, or timed out)"
            problem = answer.problem(turn)
            if problem is not None:
                return problem
            self.turn = None
        self.publish({"type": "answered", "token": token})
        self._answers.put(answer)
        return None

    def notice(self, event: dict[str, Any]) -> None:
        self.publish(event)

    def finish(self, result: dict[str, Any]) -> None:
        self.result = result
        self.publish({"type": "end", "success": result.get("success"), "steps": result.get("steps")})

    def rate(self, ratings: dict[str, Any]) -> str | None:
        """Keep the person's ratings once, after the episode; the reason they are refused, or None."""
        if self.result is None:
            return "the episode has not ended yet"
        if self.rated.is_set():
            return "the ratings were already given"
        self.ratings = ratings
        self.rated.set()
        self.publish({"type": "rated"})
        return None

    def close(self) -> None:
        """Stop waiting: an open turn is answered with nothing and the episode ends as abandoned."""
        self.closed.set()
        self._answers.put(None)
