"""The `capo-team-size` suite (CaPo table 4's shape) runs with the scripted model and stores all six teams."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import SuiteInvalid, load_suite, parse_suite
from coopgraph.testing import scripted_lm

sys.path.insert(0, str(Path(__file__).parent))
from test_capo_behaviour import capo_model  # noqa: E402


def test_the_suite_pairs_each_capo_team_with_its_paper_row() -> None:
    suite, _, _ = load_suite("capo-team-size")
    sizes = {t.label: len(t.members) for t in suite.teams}
    assert sizes == {"MHP x 2": 2, "MHP x 3": 3, "MHP x 4": 4, "CaPo x 2": 2, "CaPo x 3": 3, "CaPo x 4": 4}
    steps = {t.label: [r.steps for r in t.references if r.source == "CaPo t.4"] for t in suite.teams}
    assert steps["CaPo x 2"] == [51] and steps["CaPo x 3"] == [46] and steps["CaPo x 4"] == [45]


def test_a_team_larger_than_the_world_seats_is_refused_at_load_with_its_line() -> None:
    text = ("name: big\nenvironment:\n  name: overcooked\nepisodes: [cramped_room]\nteams:\n"
            "  - label: three\n    members: [mhp, mhp, mhp]\n")
    with pytest.raises(SuiteInvalid) as caught:
        parse_suite(text, "big.yaml")
    assert str(caught.value) == ("big.yaml:7:5: teams.0.members: team 'three' has 3 agents; world 'overcooked' "
                                 "seats at most 2")


def test_the_suite_runs_with_the_scripted_model_and_stores_every_team(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(capo_model()))
        ran = CliRunner().invoke(app, ["eval", "capo-team-size", "--out", str(out), "--limit", "1",
                                       "--max-steps", "12", "--workers", "1", "--json"])
    assert ran.exit_code == 0, ran.output
    with ResultStore(out) as store:
        rows = {r["team"]: r for r in store.rows()}
    assert set(rows) == {"MHP x 2", "MHP x 3", "MHP x 4", "CaPo x 2", "CaPo x 3", "CaPo x 4"}
    assert [len(rows[f"CaPo x {n}"]["members"]) for n in (2, 3, 4)] == [2, 3, 4]
    shown = CliRunner().invoke(app, ["report", str(out), "--json"])
    assert shown.exit_code == 0, shown.output
    assert {t["team"] for t in json.loads(shown.stdout)["teams"]} == set(rows)
