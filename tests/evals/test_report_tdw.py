"""TDW-MAT in the report: EI on transport rate per episode as CoELA computes it, CoELA's table 1 with the paper's
numbers apart, the shipped suite with per-team perception, and the calibration's fitting on known curves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.bench.tdw_calibration import Cell, fit_miss, fit_moves, table
from coopgraph.evals.metrics import efficiency_improvement, mean_improvement
from coopgraph.evals.report import collect, write_report
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, load_suite
from tests.evals.report_cells import check_cells


def _row(team: str, members: list[str], episode: str, rate: float, food: bool, seed: int = 0,
         perception: str = "oracle") -> dict[str, Any]:
    return {"run_id": f"{team}{episode}{seed}", "suite": "tdw-mat-baselines", "team": team, "env": "tdw-mat",
            "env_options": {} if perception == "oracle" else {"perception": perception}, "episode": episode,
            "seed": seed, "repeat": 0, "config_hash": "c", "status": "done", "success": float(rate == 1.0),
            "steps": 3000, "max_steps": 3000, "members": members, "finished_at": 1.0,
            "metrics": {"transport_rate": rate, "task_food": float(food), "frames": 3000, "tr_bound": 1.0}}


def test_ei_is_the_per_episode_gain_over_the_larger_rate_averaged() -> None:
    # CoELA's LLaMA-2 food cell: a higher mean rate can still read as a loss when averaged per episode
    team, solo = {"a": 0.2, "b": 1.0}, {"a": 0.4, "b": 0.64}
    assert mean_improvement(team, solo, higher_is_better=True) == pytest.approx(((0.2 - 0.4) / 0.4 + 0.36) / 2)
    assert mean_improvement(team, solo, higher_is_better=True) == pytest.approx(-0.07)
    rows = [_row("T", ["rhp"], "a", 0.5, True, seed=0), _row("T", ["rhp"], "a", 0.7, True, seed=1)]
    ref = [_row("R", ["rhp"], "a", 0.4, True)]
    assert efficiency_improvement(rows, ref, "transport_rate") == pytest.approx((0.6 - 0.4) / 0.6)
    assert efficiency_improvement(rows, [_row("R", ["rhp"], "z", 0.4, True)], "transport_rate") is None


def test_the_report_prints_coelas_table_1_with_ei_per_perception(tmp_path: Path) -> None:
    suite, path, text = load_suite("tdw-mat-baselines")
    with ResultStore(tmp_path) as store:
        store.save_suite(suite.name, str(path), text)
        for episode, food, solo, pair in (("test/0", True, 0.5, 0.8), ("test/12", False, 0.4, 0.4)):
            store.record(_row("RHP", ["rhp"], episode, solo, food))
            store.record(_row("RHP + RHP", ["rhp", "rhp"], episode, pair, food))
            store.record(_row("RHP (detector)", ["rhp"], episode, solo / 2, food, perception="detector"))
            store.record(_row("RHP + RHP (detector)", ["rhp", "rhp"], episode, solo, food, perception="detector"))
    (result,) = collect(tmp_path)
    data = write_report(tmp_path)
    page = Path(data["report"]).read_text(encoding="utf-8")
    assert "CoELA table 1 layout" in page and "Average steps" not in page
    assert [t["name"] for t in data["tables"]] == ["coela-t1", "cost"] and check_cells(data["tables"]) > 20
    pair = next(r for r in data["tables"][0]["rows"] if r["team"] == "RHP + RHP")
    assert pair["total"]["n"] == 2 and pair["food"] == {"mean": 0.8, "ci95": None, "n": 1, "deterministic": None}
    assert pair["total_ei"]["paired_by"] == "episode, seed, repeat"
    assert pair["total_ei"]["ci95"] == pytest.approx([0.0, 0.375])
    # one episode per task: n=1 there; the totals have two runs to resample, EI paired by episode, seed, repeat
    assert "| RHP + RHP | oracle | 2 | 0.80 (n=1) | ↑38% (n=1) | 0.40 (n=1) | ↑0% (n=1) | 0.60 [0.40, 0.80] (n=2) | " \
           "↑19% [↑0%, ↑38%] (n=2) | 1.00 [1.00, 1.00] (n=2) | 3,000 [3,000, 3,000] (n=2) | CoELA t.1: 76 / 74 / 75 " \
           "(34%) |" in page
    assert "| RHP + RHP (detector) | detector | 2 | 0.50 (n=1) | ↑50% (n=1) | 0.40 (n=1) | ↑50% (n=1) | 0.45 " \
           "[0.40, 0.50] (n=2) | ↑50% [↑50%, ↑50%] (n=2) |" in page
    assert "| RHP | oracle | 2 | 0.50 (n=1) | – | 0.40 (n=1) | – | 0.45 [0.40, 0.50] (n=2) | – |" in page
    assert result.summaries["RHP + RHP"].ei == pytest.approx((0.3 / 0.8 + 0.0) / 2)


def test_the_shipped_suite_runs_each_team_with_its_own_perception() -> None:
    suite, _, _ = load_suite("tdw-mat-baselines")
    assert suite.environment.name == "tdw-mat" and len(suite.episode_ids()) == 24
    jobs = {job.team: job for job in expand_jobs(suite, "runs/x", limit=1)}
    assert jobs["RHP (detector)"].env_options == {"perception": "detector"}
    assert jobs["RHP"].env_options == {}
    assert jobs["RHP (detector)"].config_hash != jobs["RHP"].config_hash
    assert jobs["Oracle + Oracle"].members == ["tdw-oracle", "tdw-oracle"]


def test_the_calibration_bisects_to_the_nearest_value_on_a_known_curve() -> None:
    def moves(value: int) -> float:
        return 7.0 / value  # 0.50 at 14

    def misses(value: float) -> float:
        return 0.6 - 0.3 * value  # 0.45 at 0.5

    assert fit_moves(moves, 0.50, lambda _: None) == 14
    assert fit_moves(lambda v: 7.3 / v, 0.50, lambda _: None) == 15  # 0.487 is nearer than 0.521
    assert fit_miss(misses, 0.45, lambda _: None, "food") == pytest.approx(0.5, abs=0.005)
    assert fit_miss(misses, 0.7, lambda _: None, "food") == 0.0  # a perfect detector is already below
    cells = {("RHP", "oracle"): Cell({"a": 0.4, "b": 0.6}, {"a": "food", "b": "stuff"}),
             ("RHP+RHP", "oracle"): Cell({"a": 0.8, "b": 0.6}, {"a": "food", "b": "stuff"})}
    printed = table(cells)
    assert "| RHP | oracle | 0.40 / 0.60 / 0.50 | 0.52 / 0.49 / 0.50 |" in printed
    assert "| RHP+RHP | oracle | 0.80 / 0.60 / 0.70 (25%) | 0.76 / 0.74 / 0.75 (34%) |" in printed


def _comparison_row(team: str, members: list[str], episode: str, rate: float, food: bool) -> dict[str, Any]:
    row = _row(team, members, episode, rate, food)
    return row | {"suite": "tdw-mat-comparison", "env_options": {"perception": "oracle"}}


def test_the_comparison_report_gives_each_method_ei_against_rhp_and_the_papers_apart(tmp_path: Path) -> None:
    suite, path, text = load_suite("tdw-mat-comparison")
    with ResultStore(tmp_path) as store:
        store.save_suite(suite.name, str(path), text)
        for team, members, rates in (("RHP", ["rhp"], (0.4, 0.5)), ("CaPo + CaPo", ["capo", "capo"], (0.8, 0.6))):
            store.record(_comparison_row(team, members, "test/0", rates[0], True))
            store.record(_comparison_row(team, members, "test/12", rates[1], False))
    collect(tmp_path)
    page = Path(write_report(tmp_path)["report"]).read_text(encoding="utf-8")
    capo = next(line for line in page.splitlines() if line.startswith("| CaPo + CaPo |"))
    # EI per episode: (0.8-0.4)/0.8 = 50%, (0.6-0.5)/0.6 = 17%; mean 33%
    assert "| oracle | 2 | 0.80 (n=1) | ↑50% (n=1) | 0.60 (n=1) | ↑17% (n=1) | 0.70 [0.60, 0.80] (n=2) | ↑33% " in capo
    assert "CaPo t.1: 90 / 87 / 89 (39%) — GPT-4" in capo
    rhp = next(line for line in page.splitlines() if line.startswith("| RHP |"))
    assert "| 0.40 (n=1) | – | 0.50 (n=1) | – | 0.45 [0.40, 0.50] (n=2) | – |" in rhp
    assert "CoELA t.1: 52 / 49 / 50" in rhp
    assert "Average steps" not in page


def test_paper_numbers_stay_out_of_a_report_on_the_train_split(tmp_path: Path) -> None:
    """Every paper number is on the test split: beside train-split rows (a store from an older or edited suite)
    the report leaves the paper column empty and says why."""
    suite, path, text = load_suite("tdw-mat-comparison")
    with ResultStore(tmp_path) as store:
        store.save_suite(suite.name, str(path), text)
        store.record(_comparison_row("RHP", ["rhp"], "train/0", 0.4, True))
    (result,) = collect(tmp_path)
    assert result.references("RHP") == [] and "RHP: CoELA t.1 is for split test, the runs are 'train'" in result.refused
    page = Path(write_report(tmp_path)["report"]).read_text(encoding="utf-8")
    rhp = next(line for line in page.splitlines() if line.startswith("| RHP |"))
    assert "CoELA t.1" not in rhp and "Paper numbers left out" in page


def test_the_shipped_comparison_suite_pairs_every_method_with_rhp_and_itself() -> None:
    suite, _, _ = load_suite("tdw-mat-comparison")
    assert suite.environment.name == "tdw-mat" and suite.environment.options == {"perception": "oracle"}
    assert len(suite.episode_ids()) == 24 and suite.reference_team() == "RHP"
    members = {tuple(m.name for m in t.members) for t in suite.teams}
    assert {("rhp",), ("rhp", "rhp"), ("rhp", "coela"), ("coela", "coela"), ("capo", "capo"), ("capo", "coela"),
            ("rhp", "capo"), ("reveca", "reveca"), ("rhp", "reveca")} <= members
