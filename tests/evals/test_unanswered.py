"""Which store rows went partly without their model: summed over agents, refused calls or fallbacks."""

from __future__ import annotations

from coopgraph.evals.unanswered import (
    COUNTED_ANYWAY,
    NOT_COUNTED,
    Unanswered,
    as_read,
    judged,
    marked_not_counted,
    not_a_measurement,
    settle_stored,
    unanswered,
)


def _usage(**agents: dict[str, int]) -> dict[str, object]:
    return {"llm_usage": agents}


def test_fallbacks_or_refused_calls_of_any_agent_make_a_row_unanswered() -> None:
    answered = {"llm_calls": 40, "llm_errors": 1, "llm_refused": 0, "llm_fallbacks": 0}  # a retry answered it
    assert unanswered(_usage(alice=answered, bob=answered)) is None
    stopped = unanswered(_usage(alice=answered, bob={"llm_calls": 3, "llm_refused": 388, "llm_fallbacks": 389}))
    assert stopped == Unanswered(389, 388)
    assert stopped.text == "389 questions without a model answer (server unavailable)"
    assert stopped.error.startswith(f"{NOT_COUNTED}: 389 questions") and stopped.error.endswith("plays it again")


def test_a_row_from_before_llm_refused_is_judged_by_its_fallbacks() -> None:
    old = unanswered(_usage(alice={"llm_calls": 2, "llm_errors": 1, "llm_fallbacks": 1}))
    assert old is not None and old.text == "1 question without a model answer (its calls failed)"


def test_rows_without_usage_are_answered() -> None:
    assert unanswered({}) is None and unanswered({"llm_usage": None}) is None  # a baseline, a failed episode
    assert unanswered({"llm_usage": {"alice": None}}) is None


def _done(**agents: dict[str, int]) -> dict[str, object]:
    return {"status": "done", "metrics": {"score": 20.0}, **_usage(**agents)}


def test_a_run_stores_an_unanswered_episode_failed_with_why_unless_asked_to_count_it() -> None:
    answered, gone = _done(alice={"llm_calls": 9}), _done(alice={"llm_calls": 3, "llm_fallbacks": 5})
    assert judged(answered) is answered and judged({"status": "done"}) == {"status": "done"}  # a baseline
    failed = judged(gone)
    assert failed["status"] == "error" and failed["error"] == (
        f"{NOT_COUNTED}: 5 questions without a model answer (its calls failed); a rerun plays it again")
    assert marked_not_counted(failed) and failed["metrics"] == {"score": 20.0}  # figures kept for reading
    counted = judged(gone, count_unanswered=True)
    assert counted["status"] == "done" and counted["metrics"] == {"score": 20.0, COUNTED_ANYWAY: True}
    assert not_a_measurement(gone) == Unanswered(5, 0) and not_a_measurement(counted) is None
    assert as_read(gone)["status"] == "error" and as_read(counted) is counted and as_read(answered) is answered
    session = {**gone, "study": {"participant": "p01"}}  # a person's session: no rerun can play it again
    assert judged(session) is session and as_read(session) is session and not_a_measurement(session) is None


def test_kept_rows_follow_the_choice_of_the_run_that_finds_them() -> None:
    class Store:
        def __init__(self) -> None:
            self.failed: list[tuple[object, ...]] = []
            self.done: list[tuple[tuple[object, ...], dict[str, object]]] = []

        def mark_failed(self, key: tuple[object, ...], error: str) -> bool:
            self.failed.append(key)
            return True

        def mark_done(self, key: tuple[object, ...], metrics: dict[str, object]) -> bool:
            self.done.append((key, metrics))
            return True

    key = {"suite": "s", "team": "t", "episode": "e", "seed": 0, "repeat": 0, "config_hash": "h"}
    gone = {**key, **_done(alice={"llm_refused": 2, "llm_fallbacks": 2})}
    counted = judged(gone, count_unanswered=True)
    marked = judged(gone)
    crashed = {**key, "status": "error", "error": "boom", **_usage(alice={"llm_fallbacks": 1})}
    store = Store()
    assert settle_stored(store, [gone, counted, marked, crashed]) == [gone, counted]  # counted before: not now
    assert store.failed == [("s", "t", "e", 0, 0, "h")] * 2 and store.done == []
    store = Store()
    assert settle_stored(store, [gone, counted, marked, crashed], count_unanswered=True) == []
    assert [metrics for _, metrics in store.done] == [{"score": 20.0, COUNTED_ANYWAY: True}] * 2  # gone, marked
