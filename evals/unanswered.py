"""Episodes played partly without their model: a store row whose agents took a node's fallback for want of a model
answer (`llm_fallbacks`) or had calls refused by an open circuit (`llm_refused`) did not measure the model.

Such an episode still ends and is stored as `done` (the graph keeps deciding on its fallbacks), so the figures of a
row whose server stopped answering mid-episode look like a measurement: hundreds of invalid answers, a score of 0,
seconds of wall time. Readers that publish figures of the model set these rows apart by their `llm_usage`, which
every row since the usage counter carries; a row stored before `llm_refused` existed is judged by its fallbacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: What a failed row's `error` starts with when it was marked for going without its model (`store.mark_failed`).
NOT_COUNTED = "not a measurement of the model"


@dataclass(frozen=True)
class Unanswered:
    """How many of an episode's questions went without a model answer, over its agents."""

    fallbacks: int
    refused: int

    @property
    def text(self) -> str:
        """`777 questions without a model answer (server unavailable)`."""
        why = "server unavailable" if self.refused else "its calls failed"
        count = max(self.fallbacks, self.refused)
        return f"{count} question{'s' * (count != 1)} without a model answer ({why})"

    @property
    def error(self) -> str:
        """The `error` a failed row keeps, so the store and `coopgraph report` say why it is not counted."""
        return f"{NOT_COUNTED}: {self.text}; a rerun plays it again"


def _total(usage: Any, name: str) -> int:
    if not isinstance(usage, dict):
        return 0
    return sum(int(agent.get(name) or 0) for agent in usage.values() if isinstance(agent, dict))


def unanswered(row: dict[str, Any]) -> Unanswered | None:
    """What the row's episode asked without a model answering, summed over its agents; None when every question
    was answered (or the row has no usage: a baseline team, an episode that failed before it played)."""
    usage = row.get("llm_usage")
    found = Unanswered(_total(usage, "llm_fallbacks"), _total(usage, "llm_refused"))
    return found if found.fallbacks or found.refused else None
