"""User-study suites: counterbalanced condition orders (balanced Latin squares), each participant's schedule and
next session, what a study suite may seat, and the report's table per partner condition."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.report import write_report
from coopgraph.evals.store import open_store
from coopgraph.evals.study_sessions import play_study
from coopgraph.evals.suite import SuiteInvalid, load_suite, parse_suite
from coopgraph.evals.user_study import (
    StudyError,
    balanced_latin_square,
    check_participant,
    next_session,
    schedule,
)
from coopgraph.play.session import PlayAbandoned

STUDY = """name: study
kind: user-study
environment: {name: cwah}
episodes: [test/0, test/1, test/2]
max_steps: 12
teams:
  - label: A
    members: [human, mhp]
  - label: B
    members: [human, mhp-silent]
  - label: C
    members: [mhp, human]
"""


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_square_balances_positions_and_carryover(n: int) -> None:
    rows = balanced_latin_square(n)
    assert len(rows) == (n if n % 2 == 0 else 2 * n)
    assert all(sorted(row) == list(range(n)) for row in rows)
    for position in range(n):  # every condition in every position equally often
        counts = [sum(row[position] == c for row in rows) for c in range(n)]
        assert len(set(counts)) == 1
    pairs = [(row[i], row[i + 1]) for row in rows for i in range(n - 1)]
    assert {pairs.count(p) for p in itertools.permutations(range(n), 2)} == {len(pairs) // (n * (n - 1))}


def test_a_participants_schedule_follows_their_row() -> None:
    suite = parse_suite(STUDY)
    first, second = schedule(suite, "P1", 0), schedule(suite, "P2", 1)
    assert [s.team.label for s in first] == ["A", "B", "C"] and [s.episode for s in first] == ["test/0", "test/1",
                                                                                                  "test/2"]
    assert [s.team.label for s in second] != [s.team.label for s in first]
    assert {s.team.label for s in second} == {"A", "B", "C"}


def test_participant_ids_are_short_codes_only() -> None:
    assert check_participant("P7") == "P7"
    for bad in ("", "Jane Doe", "jane@example.org", "x" * 33):
        with pytest.raises(StudyError, match="short code"):
            check_participant(bad)


def test_study_suites_seat_exactly_one_person_and_others_none() -> None:
    with pytest.raises(SuiteInvalid, match=r"s.yaml:5:\d+: teams.0.members: a user-study team seats exactly one"):
        parse_suite("name: x\nkind: user-study\nteams:\n  - label: a\n    members: [mhp, mhp]\n", "s.yaml")
    with pytest.raises(SuiteInvalid, match="only `kind: user-study` suites seat one"):
        parse_suite("name: x\nteams:\n  - label: a\n    members: [human, mhp]\n", "s.yaml")
    shipped = load_suite("cwah-user-study")[0]
    assert shipped.kind == "user-study"
    assert [[m.name for m in t.members] for t in shipped.teams] == [["human", "coela"], ["human", "coela-nocomm"],
                                                                     ["human", "mhp"]]


def _fake_play(ratings: dict[str, Any] | None, steps: int = 12) -> Any:
    def play(**kwargs: Any) -> dict[str, Any]:
        trace = kwargs["out"] / kwargs["trace_name"]
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text("", encoding="utf-8")
        return {"success": False, "steps": steps, "max_steps": 12, "metrics": {"success": 0.0, "steps": steps},
                "per_agent": {}, "llm_usage": {}, "trace_path": str(trace), "ratings": ratings,
                "deterministic": False, "team": kwargs["team"]}
    return play


def test_sessions_are_stored_resumed_after_abandoning_and_reported(tmp_path: Path) -> None:
    suite_file = tmp_path / "study.yaml"
    suite_file.write_text(STUDY, encoding="utf-8")
    out = tmp_path / "store"

    def leave(**kwargs: Any) -> dict[str, Any]:
        raise PlayAbandoned(tmp_path / "t.jsonl", 3)

    with pytest.raises(PlayAbandoned):
        play_study(str(suite_file), "P1", out, leave, say=lambda _: None)
    with open_store(out) as store:
        assert [r["status"] for r in store.rows(status=None)] == ["abandoned"]
    played = [play_study(str(suite_file), "P1", out, _fake_play({"helpfulness": h, "trust": 7, "comment": ""}),
                         say=lambda _: None) for h in (2, 4, 6)]
    assert [p["condition"] for p in played if p] == ["A", "B", "C"]  # the abandoned session came first again
    assert play_study(str(suite_file), "P1", out, _fake_play(None), say=lambda _: None) is None
    second = play_study(str(suite_file), "P2", out, _fake_play(None, steps=9), say=lambda _: None)
    assert second is not None and second["study"]["ordinal"] == 1 and second["condition"] == "B"
    with open_store(out) as store:
        suite = parse_suite(STUDY)
        assert next_session(store, suite, "P2").index == 1  # type: ignore[union-attr]
        done = store.rows(suite="study")
    assert {r["repeat"] for r in done} == {0, 1} and all(r["deterministic"] is False for r in done)
    text = Path(write_report(out)["report"]).read_text(encoding="utf-8")
    assert "people beside agents" in text
    assert "| A | 1 | 1 | 0 |" in text and "| B | 2 | 2 | 0 |" in text
    assert "4.0 (n=1)" in text  # B's one rating (P2 gave none)
