"""The report: paper-shaped tables with our numbers and, in a separate labelled column, the papers' numbers."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.report import collect, write_report
from coopgraph.evals.store import ResultStore
from tests.evals.report_cells import check_cells

SUITE = """\
name: abl
kind: ablation
environment: {name: cwah-noisy, options: {noise: 20}}
episodes: [test/0, test/1]
seeds: [0, 1]
teams:
  - label: full
    members: [x, x]
    description: everything on
    references: [{source: REVECA t.4, world: cwah-noisy, split: test, ss: 63.6, td: 54.37, cs: 8.8, cc: 103.03}]
  - label: w/o validation
    members: [y, y]
    description: no plan validation
    references: [{source: REVECA t.4, world: cwah-noisy, split: test, ss: 75.8, td: 68.53, cs: 5.0, cc: 46.84}]
"""


def _row(team: str, episode: str, seed: int, steps: float, *, noise: int = 20, config: str = "c1",
         finished: float = 10.0, **extra: Any) -> dict[str, Any]:
    members = {"full": ["x", "x"], "w/o validation": ["y", "y"]}[team]
    return {"run_id": f"{team}{episode}{seed}{noise}{config}", "suite": "abl", "team": team, "env": "cwah-noisy",
            "env_options": {"noise": noise}, "episode": episode, "seed": seed, "repeat": 0, "config_hash": config,
            "status": "done", "success": 1.0, "steps": steps, "max_steps": 250, "subgoals_done": 4,
            "subgoals_total": 4, "travel_distance_per_agent": steps / 2, "communication_steps": 3,
            "characters_per_message": 90.0, "prompt_tokens": 100 * steps + 10 * noise, "decisions": steps,
            "llm_calls": 2 * steps, "members": members, "progress": [[1, 0], [int(steps / 2), 2], [int(steps), 4]],
            "oracle_bound": 30.0, "wall_time_s": 1.5, "finished_at": finished, **extra}


def _store(folder: Path) -> None:
    with ResultStore(folder) as store:
        store.save_suite("abl", "abl.yaml", SUITE)
        for seed, bump in ((0, 0), (1, 10)):
            store.record(_row("full", "test/0", seed, 50 + bump))
            store.record(_row("full", "test/1", seed, 70 + bump))
            store.record(_row("w/o validation", "test/0", seed, 80 + bump))
            store.record(_row("w/o validation", "test/1", seed, 100 + bump))
        store.record(_row("full", "test/0", 0, 999, config="old", finished=1.0))  # an earlier configuration
        store.record(_row("full", "test/0", 0, 40, noise=0, config="c0", finished=5.0))
        store.record({**_row("w/o validation", "test/9", 0, 0), "status": "error", "error": "boom", "steps": None})


def test_tables_use_the_current_configuration_and_label_the_paper_column(tmp_path: Path) -> None:
    _store(tmp_path)
    (result,) = collect(tmp_path)
    full = result.summaries["full"]
    assert full.episodes == 4 and result.stale == 2  # the old and the noise-0 configurations are left out
    assert full.stats["steps"].mean == 65 and full.stats["steps"].std == pytest.approx(7.0710678)  # seeds: 60, 70
    assert result.summaries["w/o validation"].errors == 1
    data = write_report(tmp_path)
    text = Path(data["report"]).read_text(encoding="utf-8")
    assert "CaPo table 3 layout" in text and "REVECA tables 1/3/4 layout" in text and "CoELA table 2 layout" in text
    assert "paper SS / TD / CS / CC (REVECA t.4)" in text and "SS 63.6 / TD 54.37 / CS 8.8 / CC 103.03" in text
    assert "| w/o validation | no plan validation |" in text
    assert "| 30.0 [30.0, 30.0] (n=4) |" in text  # Δ steps vs the full model: 30 more on every paired run
    assert "they are not our results" in text
    assert ("Failed runs, not counted above (a rerun of the suite plays them again): w/o validation: test/9 (seed 0): "
            "boom.") in text
    with open(tmp_path / "report" / "abl-reveca.csv", encoding="utf-8") as handle:
        rows = {r["team"]: r for r in csv.DictReader(handle)}
    assert float(rows["full"]["ss"]) == 65 and float(rows["full"]["ss_min"]) == 60 and rows["full"]["ss_std"]
    assert rows["w/o validation"]["paper"].startswith("SS 75.8")
    names = {Path(f).name for f in data["files"]}
    assert {"abl-steps.png", "abl-progress.png", "abl-ablation.csv", "abl-cost.csv", "abl-efficiency.csv"} <= names
    assert "prompt-tokens-vs-dummy-objects.png" not in names  # one noise level among current rows
    for png in (f for f in data["files"] if f.endswith(".png")):
        assert Path(png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_noise_plot_appears_when_runs_vary_the_dummy_objects(tmp_path: Path) -> None:
    with ResultStore(tmp_path) as store:
        store.save_suite("abl", "abl.yaml", SUITE)
        store.record(_row("full", "test/0", 0, 50))
        store.record(_row("w/o validation", "test/0", 0, 60))
    with ResultStore(tmp_path) as store:  # another suite of the same members without noise
        store.save_suite("abl0", "abl0.yaml", SUITE.replace("name: abl", "name: abl0"))
        store.record({**_row("full", "test/0", 0, 45, noise=0), "suite": "abl0", "run_id": "n0"})
    data = write_report(tmp_path)
    assert any(f.endswith("prompt-tokens-vs-dummy-objects.png") for f in data["files"])
    assert {t["suite"] for t in data["teams"]} == {"abl", "abl0"}


def test_planner_summaries_become_their_own_table(tmp_path: Path) -> None:
    _store(tmp_path)
    planners = tmp_path / "planners"
    planners.mkdir()
    base = {"decisions": 100, "agree_oracle": 0.5, "answer_is_first": 0.1, "invalid": 0.0, "random_mhp": 0.16,
            "mean_prompt_tokens": 450.0}
    (planners / "a.json").write_text(json.dumps({**base, "label": "local", "agree_mhp": 0.27,
                                                 "median_latency_s": 6.5}))
    (planners / "b.json").write_text(json.dumps({**base, "label": "local-coop", "agree_mhp": 0.81,
                                                 "median_latency_s": 0.4}))
    (planners / "broken.json").write_text("{not json")
    data = write_report(tmp_path)
    text = Path(data["report"]).read_text(encoding="utf-8")
    assert "Planner quality on held-out decision points" in text
    assert "| local | 100 | 27% |" in text and "| local-coop | 100 | 81% |" in text and "| 0.40 |" in text
    with open(tmp_path / "report" / "planners.csv", encoding="utf-8") as handle:
        assert [r["label"] for r in csv.DictReader(handle)] == ["local", "local-coop"]


def test_no_planner_table_without_summaries(tmp_path: Path) -> None:
    _store(tmp_path)
    assert "Planner quality" not in Path(write_report(tmp_path)["report"]).read_text(encoding="utf-8")


def test_json_gives_every_metric_cell_an_interval_and_the_ablation_deltas_paired(tmp_path: Path) -> None:
    _store(tmp_path)
    data = write_report(tmp_path)
    assert [t["name"] for t in data["tables"]] == ["efficiency", "reveca", "ablation", "cost"]
    assert check_cells(data["tables"]) > 30
    tables = {t["name"]: t for t in data["tables"]}
    delta = {r["team"]: r["delta"] for r in tables["ablation"]["rows"]}
    assert delta["w/o validation"] == {"mean": 30.0, "ci95": [30.0, 30.0], "n": 4, "deterministic": None,
                                       "paired_by": "episode, seed, repeat"}
    assert delta["full"]["ci95"] == [0.0, 0.0]  # the reference against itself
    steps = tables["efficiency"]["rows"][0]["steps"]
    assert steps["mean"] == 65 and steps["n"] == 4 and steps["ci95"][0] < 65 < steps["ci95"][1]
    ei = tables["efficiency"]["rows"][1]["ei"]
    assert ei["paired_by"] == "episode, seed, repeat" and ei["ci95"][1] < 0  # slower than the full model each time
    teams = {t["team"]: t for t in data["teams"]}
    assert teams["w/o validation"]["ei_interval"] == ei and teams["full"]["spread"]["steps"]["ci95"] == steps["ci95"]
    with open(tmp_path / "report" / "abl-efficiency.csv", encoding="utf-8") as handle:
        row = next(csv.DictReader(handle))
    assert float(row["steps_ci95_low"]) == round(steps["ci95"][0], 4) and row["steps_n"] == "4"


def test_a_comparison_suite_gives_ei_paired_intervals(tmp_path: Path) -> None:
    with ResultStore(tmp_path) as store:
        store.save_suite("abl", "abl.yaml", SUITE.replace("kind: ablation", "kind: comparison\nbaseline: full"))
        for seed, bump in ((0, 0), (1, 10)):
            for episode, steps in (("test/0", 50), ("test/1", 70)):
                store.record(_row("full", episode, seed, steps + bump))
                store.record(_row("w/o validation", episode, seed, steps + bump + 25))
    data = write_report(tmp_path)
    assert [t["name"] for t in data["tables"]] == ["efficiency", "reveca", "cost"]
    check_cells(data["tables"])
    ei = data["tables"][0]["rows"][1]["ei"]
    assert ei["n"] == 4 and ei["ci95"][0] <= ei["mean"] <= ei["ci95"][1] < 0


def test_two_renders_of_one_store_are_the_same(tmp_path: Path) -> None:
    _store(tmp_path)
    first, second = write_report(tmp_path, tmp_path / "one"), write_report(tmp_path, tmp_path / "two")
    assert Path(first["report"]).read_text(encoding="utf-8") == Path(second["report"]).read_text(encoding="utf-8")
    assert first["tables"] == second["tables"]
    for name in ("abl-ablation.csv", "abl-efficiency.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_deterministic_replicates_are_said_to_be_so(tmp_path: Path) -> None:
    with ResultStore(tmp_path) as store:
        store.save_suite("abl", "abl.yaml", SUITE)
        for seed in (0, 1):
            for repeat in (0, 1, 2):
                for team, steps in (("full", 50), ("w/o validation", 80)):
                    row = _row(team, "test/0", seed, steps + seed, repeat=repeat)
                    store.record(row | {"metrics": {"deterministic": True}, "run_id": f"{row['run_id']}{repeat}"})
    data = write_report(tmp_path)
    steps = data["tables"][0]["rows"][0]["steps"]
    assert steps["n"] == 6 and steps["deterministic"] is True
    assert steps["ci95"] == [50.0, 51.0]  # two (episode, seed) units, 50 and 51: the repeats are copies
    text = Path(data["report"]).read_text(encoding="utf-8")
    assert "| 50.5 [50.0, 51.0] (n=6, deterministic) |" in text
    with ResultStore(tmp_path / "one") as store:
        store.save_suite("abl", "abl.yaml", SUITE)
        for repeat in (0, 1, 2):
            row = _row("full", "test/0", 0, 50, repeat=repeat)
            store.record(row | {"metrics": {"deterministic": True}, "run_id": f"r{repeat}"})
    text = Path(write_report(tmp_path / "one")["report"]).read_text(encoding="utf-8")
    assert "| 50.0 (n=3, deterministic) |" in text  # copies of one run: no spread to print


def test_an_episode_played_partly_without_its_model_is_a_failed_run_unless_a_run_chose_to_count_it(
        tmp_path: Path) -> None:
    _store(tmp_path)
    healthy = Path(write_report(tmp_path)["report"]).read_text(encoding="utf-8")
    assert "never answered" not in healthy  # no column when every question was answered
    gone = {"alice": {"llm_calls": 3, "llm_fallbacks": 40, "llm_refused": 40}, "bob": {"llm_fallbacks": 0}}
    with ResultStore(tmp_path) as store:  # stored done, as runs did before the rule: no run has marked it
        store.record(_row("full", "test/1", 2, 999, finished=20.0, llm_usage=gone))
    (result,) = collect(tmp_path)
    assert result.summaries["full"].episodes == 4 and result.errors["full"] == 1  # in no figure: a failed run
    text = Path(write_report(tmp_path)["report"]).read_text(encoding="utf-8")
    assert ("full: test/1 (seed 2): not a measurement of the model: 40 questions without a model answer (server "
            "unavailable); a rerun plays it again") in text
    assert "never answered" not in text  # nothing counted went without its model
    with ResultStore(tmp_path) as store:  # `coopgraph eval --count-unanswered` counted it
        store.mark_done(("abl", "full", "test/1", 2, 0, "c1"), {"unanswered_counted": True})
    (result,) = collect(tmp_path)
    assert result.summaries["full"].episodes == 5 and result.errors["full"] == 0
    text = Path(write_report(tmp_path)["report"]).read_text(encoding="utf-8")
    assert "Episodes with questions the model never answered" in text and "--count-unanswered" in text
    full = next(line for line in text.splitlines() if line.startswith("| full |") and "(seed 2)" in line)
    assert "test/1 (seed 2): 40 questions without a model answer (server unavailable)" in full
    assert next(line for line in text.splitlines() if line.startswith("| w/o validation |")
                and line.rstrip().endswith("| none |"))
