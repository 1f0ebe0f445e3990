"""A scripted seat for tests: answers turns from a list, records what it was shown."""

from __future__ import annotations

from typing import Any

from coopgraph.play.turn import Answer, Turn


class ScriptedSeat:
    """Answers each turn with the next scripted answer (None: no answer); then the first option."""

    def __init__(self, answers: list[Answer | None] | None = None) -> None:
        self.answers = list(answers or [])
        self.turns: list[Turn] = []
        self.events: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None

    def ask(self, turn: Turn, limit_s: float | None) -> Answer | None:
        self.turns.append(turn)
        return self.answers.pop(0) if self.answers else Answer(choice=1)

    def notice(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def finish(self, result: dict[str, Any]) -> None:
        self.result = result
