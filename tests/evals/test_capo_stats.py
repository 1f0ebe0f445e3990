"""CaPo's tables 8-9 statistics: computed from a trace's events, stored with each episode row, shown by
`coopgraph report` (and `--json`) beside REVECA's SS/TD/CS/CC for every team."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.capo_stats import capo_statistics
from coopgraph.evals.store import ResultStore
from coopgraph.record.trace_file import read_events
from coopgraph.testing import scripted_lm
from tests.evals.test_capo_behaviour import capo_model

KNOWN_TRACE: list[dict[str, Any]] = [
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "init plan 1.1", "sent": True},
    {"type": "message", "agent": "alice", "step": 1, "text": "[capo plan 1.1 1/2] Alice: a", "chars": 500},
    {"type": "message", "agent": "alice", "step": 2, "text": "[capo plan 1.1 2/2] Bob: b", "chars": 100},
    {"type": "message", "agent": "bob", "step": 3, "text": "[capo feedback 1.1 revise] no", "chars": 50},
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "refine plan 1.2", "sent": True},
    {"type": "message", "agent": "alice", "step": 4, "text": "[capo plan 1.2] Alice: a", "chars": 250},
    {"type": "message", "agent": "bob", "step": 5, "text": "[capo feedback 1.2 agree] ok", "chars": 50},
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "consensus on 1.2"},
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "plan 1 still fits"},
    {"type": "message", "agent": "bob", "step": 9, "text": "I am in the kitchen.", "chars": 20},  # not CaPo's
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "plan 1 no longer fits"},
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "adapt plan 2.1", "sent": True},
    {"type": "message", "agent": "alice", "step": 12, "text": "[capo plan 2.1] Alice: c", "chars": 200},
    {"type": "message", "agent": "bob", "step": 13, "text": "[capo feedback 2.1 revise] no", "chars": 50},
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "budget spent at 2.1"},
    {"type": "discussion", "agent": "alice", "role": "designer", "what": "adapt plan 3.1", "sent": False},  # alone
]


def test_the_statistics_of_a_known_trace() -> None:
    assert capo_statistics(KNOWN_TRACE) == {
        "capo_meta_plans": 3.0,  # versions 1, 2 and 3
        "capo_discussions": 2.0,  # 1 (consensus) and 2 (budget spent); 3 was never sent
        "capo_no_consensus": 1.0,
        "capo_failure_rate": 0.5,
        "capo_rounds_per_discussion": 1.5,  # version 1: 2 rounds, version 2: 1
        "capo_chars_per_meta_plan": (500 + 100 + 50 + 250 + 50 + 200 + 50) / 2,
        "capo_message_steps": 7.0,  # two parts of one plan are two steps; the ordinary message is not counted
        "capo_plans_kept": 1.0,
    }
    assert capo_statistics([{"type": "message", "agent": "bob", "text": "hi", "chars": 2}]) == {}


SUITE = """\
name: capo-stats
kind: ablation
environment: {name: cwah}
episodes: [test/0]
seeds: [0]
llm: local
baseline: CaPo
teams:
  - label: CaPo
    members: [capo, capo]
  - label: rounds=1
    members: [capo-rounds1, capo-rounds1]
  - label: MHP
    members: [mhp, mhp]
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("capo-stats")
    suite = folder / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:  # an evaluator that never agrees: every budget is spent
        patch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(capo_model(agree=False)))
        ran = CliRunner().invoke(app, ["eval", str(suite), "--out", str(folder / "out"), "--max-steps", "40",
                                       "--workers", "1", "--json"])
    assert ran.exit_code == 0, ran.output
    shown = CliRunner().invoke(app, ["report", str(folder / "out"), "--json"])
    assert shown.exit_code == 0, shown.output
    return folder / "out", json.loads(shown.stdout)


def test_report_json_carries_the_capo_statistics_computed_from_each_episodes_trace(
        report: tuple[Path, dict[str, Any]]) -> None:
    out, data = report
    teams = {t["team"]: t for t in data["teams"]}
    with ResultStore(out) as store:
        rows = {r["team"]: r for r in store.rows()}
    for label in ("CaPo", "rounds=1"):
        expected = capo_statistics(read_events(Path(rows[label]["trace_path"])))
        assert expected["capo_discussions"] >= 1 and rows[label]["metrics"]["capo_meta_plans"] >= 1
        assert {k: rows[label]["metrics"][k] for k in expected} == expected  # stored with the episode row
        assert teams[label]["papers"]["capo"] == {**dict.fromkeys(teams[label]["papers"]["capo"]), **expected}
        assert teams[label]["papers"]["capo"]["capo_failure_rate"] == 1.0  # nobody ever agreed
    assert teams["rounds=1"]["papers"]["capo"]["capo_rounds_per_discussion"] == 1.0
    assert teams["CaPo"]["papers"]["capo"]["capo_rounds_per_discussion"] > 1.0
    assert "capo" not in teams["MHP"]["papers"]  # no discussion, no CaPo statistics
    for label, team in teams.items():  # REVECA's four, for every team
        assert team["papers"]["reveca"] == {"ss": rows[label]["steps"],
                                           "td": rows[label]["travel_distance_per_agent"],
                                           "cs": rows[label]["communication_steps"],
                                           "cc": rows[label]["characters_per_message"]}
    text = Path(data["report"]).read_text(encoding="utf-8")
    assert "CaPo tables 8 and 9 layout" in text and "| rounds=1 | 1 | 100% (n=1) |" in text
