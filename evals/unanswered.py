"""Episodes played partly without their model: a store row whose agents took a node's fallback for want of a model
answer (`llm_fallbacks`) or had calls refused by an open circuit (`llm_refused`) did not measure the model.

Such an episode still ends as `done` (the graph keeps deciding on its fallbacks), so the figures of a row whose
server stopped answering mid-episode look like a measurement: hundreds of invalid answers, a score of 0, seconds of
wall time. This module is the one place that says which rows measure the model, for `coopgraph eval`, `coopgraph
report` and the embedded-wirings bench alike: such a row is stored failed with why (`judged`), a row kept done
before is marked so (`settle_stored`), and readers of figures read an unmarked one as failed (`as_read`). A run
asked to count them anyway (`coopgraph eval --count-unanswered`) keeps them done and says so in their metrics
(`COUNTED_ANYWAY`), which readers then honour. A row stored before `llm_refused` existed is judged by its fallbacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: What a failed row's `error` starts with when it was marked for going without its model (`store.mark_failed`).
NOT_COUNTED = "not a measurement of the model"
#: The metric a done row carries when a run was asked to count it although some questions went unanswered.
COUNTED_ANYWAY = "unanswered_counted"


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


def counted_anyway(row: dict[str, Any]) -> bool:
    """Whether a run asked to count this row although some of its questions went unanswered."""
    return bool((row.get("metrics") or {}).get(COUNTED_ANYWAY))


def not_a_measurement(row: dict[str, Any]) -> Unanswered | None:
    """The rule: what a done row's episode asked without an answer when no run chose to count it; None when the
    row measures the model (or is no done row, or is a participant's session of a user study, which no rerun can
    play again: the cost table names it instead)."""
    if row.get("status") != "done" or counted_anyway(row) or isinstance(row.get("study"), dict):
        return None
    return unanswered(row)


def marked_not_counted(row: dict[str, Any]) -> bool:
    """Whether the row was stored or marked failed by the rule (rather than failing on its own)."""
    return row.get("status") != "done" and str(row.get("error") or "").startswith(NOT_COUNTED)


def judged(row: dict[str, Any], *, count_unanswered: bool = False) -> dict[str, Any]:
    """The row as a run stores it: failed with why when some questions went unanswered, or with `count_unanswered`
    done and marked `COUNTED_ANYWAY`; any other row as it is."""
    missing = unanswered(row) if row.get("status") == "done" and not isinstance(row.get("study"), dict) else None
    if missing is None:
        return row
    if count_unanswered:
        return {**row, "metrics": {**(row.get("metrics") or {}), COUNTED_ANYWAY: True}}
    return {**row, "status": "error", "error": missing.error}


def as_read(row: dict[str, Any]) -> dict[str, Any]:
    """The row as readers of figures count it: a done row that is not a measurement reads as failed, with why,
    whether or not a run has marked it yet (a store written before the rule)."""
    missing = not_a_measurement(row)
    return row if missing is None else {**row, "status": "error", "error": missing.error}


def settle_stored(store: Any, rows: list[dict[str, Any]], *, count_unanswered: bool = False) -> list[dict[str, Any]]:
    """Apply the rule to rows a run finds kept (stored before it, by a run that chose otherwise or knew no rule):
    mark failed each done row whose questions went unanswered, so the run plays it again, or with
    `count_unanswered` keep such rows counted, a row marked failed by the rule included (its figures were kept).
    Returns the rows marked failed."""
    from coopgraph.evals.store import KEY_COLUMNS

    failed = []
    for row in rows:
        missing = unanswered(row)
        if missing is None:
            continue
        key = tuple(row[column] for column in KEY_COLUMNS)
        if count_unanswered and (marked_not_counted(row) or (row["status"] == "done" and not counted_anyway(row))):
            store.mark_done(key, {**(row.get("metrics") or {}), COUNTED_ANYWAY: True})
        elif not count_unanswered and row["status"] == "done" and store.mark_failed(key, missing.error):
            failed.append(row)
    return failed
