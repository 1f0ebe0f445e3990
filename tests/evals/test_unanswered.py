"""Which store rows went partly without their model: summed over agents, refused calls or fallbacks."""

from __future__ import annotations

from coopgraph.evals.unanswered import NOT_COUNTED, Unanswered, unanswered


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
