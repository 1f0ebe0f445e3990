"""The Overcooked report: LLM-Co's table 1 and tables 3-4 (score per layout) with the paper's numbers in their own
labelled columns, soups per agent; and the shipped overcooked-llmco suite loads with the paper's layouts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coopgraph.evals.report import collect, write_report
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, load_suite
from tests.evals.report_cells import check_cells


def _row(team: str, members: list[str], episode: str, score: float, alice: float, seed: int = 0,
         by_agent: bool = False) -> dict[str, Any]:
    """A stored run; `by_agent` writes who served into the metrics as results do now (without: an older row that
    has only per_agent)."""
    soups = score / 20
    metrics: dict[str, Any] = {"score": score, "deliveries": soups}
    if by_agent:
        metrics["deliveries_by_agent"] = {"alice": alice, "bob": soups - alice}
    return {"run_id": f"{team}{episode}{seed}", "suite": "overcooked-llmco", "team": team, "env": "overcooked",
            "env_options": {}, "episode": episode, "seed": seed, "repeat": 0, "config_hash": "c", "status": "done",
            "success": float(score > 0), "steps": 400, "max_steps": 400, "members": members,
            "metrics": metrics, "invalid_answers": 1.0,
            "per_agent": {"alice": {"deliveries": alice}, "bob": {"deliveries": soups - alice}},
            "llm_calls": 10, "prompt_tokens": 1000, "decisions": 10, "wall_time_s": 2.0, "finished_at": 1.0}


def test_the_report_has_llmcos_tables_with_the_paper_columns_apart(tmp_path: Path) -> None:
    suite, path, text = load_suite("overcooked-llmco")
    with ResultStore(tmp_path) as store:
        store.save_suite(suite.name, str(path), text)
        store.record(_row("Greedy + Greedy", ["greedy", "greedy"], "cramped_room", 200, 6))
        store.record(_row("LLM-Co + LLM-Co", ["llmco", "llmco"], "cramped_room", 120, 2))
        store.record(_row("LLM-Co + LLM-Co", ["llmco", "llmco"], "no_counter_door", 40, 2))
    (result,) = collect(tmp_path)
    report = write_report(tmp_path)
    page = Path(report["report"]).read_text(encoding="utf-8")
    assert "LLM-Co table 1 layout" in page and "LLM-Co tables 3 and 4 layout" in page
    assert "| Layout | Greedy + Greedy | LLM-Co + LLM-Co | paper: PPO_SP (LLM-Co t.1) | paper: PBT (LLM-Co t.1) |" \
        " paper: LLM-Co (GPT-4) (LLM-Co t.1) |" in page
    assert "| cramped_room (Cramped) | 200 (n=1) | 120 (n=1) | 198.8 ±4.06 | 216.9 ±1.31 | 220 ±0 |" in page
    assert "| no_counter_door (Gated Delivery) | – | 40 (n=1) |" in page
    assert "paper: LLM-Co (GPT-4) helper (LLM-Co t.3)" in page and "240 t.4 says 220" in page
    assert "Average steps" not in page  # no steps-to-success tables for a world scored in points
    soups = next(line for line in page.splitlines() if line.startswith("| LLM-Co + LLM-Co | 2 |"))
    assert soups.split(" | ")[2:6] == ["80 [40, 120] (n=2)", "4.0 [2.0, 6.0] (n=2)", "2.0 [2.0, 2.0] (n=2)",
                                       "2.0 [0.0, 4.0] (n=2)"]
    assert any(f.endswith("overcooked-llmco-llmco-t1.csv") for f in report["files"])
    assert [t["name"] for t in report["tables"]] == ["llmco-t1", "llmco-t34", "soups", "served", "cost"]
    assert check_cells(report["tables"]) > 20
    cramped = report["tables"][0]["rows"][0]
    assert cramped["team1"] == {"mean": 120.0, "ci95": None, "n": 1, "deterministic": None}
    assert cramped["paper0"] == "198.8 ±4.06"  # the paper's columns stay text
    assert result.summaries["LLM-Co + LLM-Co"].episodes == 2


def test_the_shipped_suite_covers_the_seven_layouts_and_the_teams_the_paper_pairs() -> None:
    suite, _, _ = load_suite("overcooked-llmco")
    assert suite.environment.name == "overcooked" and suite.max_steps == 400
    assert suite.episode_ids() == ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination",
                                   "counter_circuit_o_1order", "no_counter_door", "soup_passing_door"]
    members = {tuple(m.name for m in t.members) for t in suite.teams}
    assert {("greedy", "greedy"), ("llmco", "greedy"), ("greedy", "llmco"), ("llmco", "llmco"),
            ("llmco-helper", "llmco-helper")} <= members
    jobs = expand_jobs(suite, "runs/x")
    assert len(jobs) == 7 * len(suite.teams) and jobs[0].llms == [None, None]


def test_who_served_is_a_table_per_layout_with_each_cooks_soups_as_intervals(tmp_path: Path) -> None:
    suite, path, text = load_suite("overcooked-llmco")
    with ResultStore(tmp_path) as store:
        store.save_suite(suite.name, str(path), text)
        for seed, alice in enumerate([0, 1, 2]):  # the planner (alice) serves 0, 1, 2 of 8 soups
            store.record(_row("LLM-Co + Greedy", ["llmco", "greedy"], "cramped_room", 160, alice, seed, by_agent=True))
        store.record(_row("Greedy + Greedy", ["greedy", "greedy"], "forced_coordination", 260, 0))  # an older row
    report = write_report(tmp_path)
    page = Path(report["report"]).read_text(encoding="utf-8")
    assert "who served, per layout" in page
    assert "| Layout | Team | Agent 1 / agent 2 | Score | Soups by agent 1 | Soups by agent 2 |" in page
    planner = next(line for line in page.splitlines() if line.startswith("| cramped_room (Cramped) | LLM-Co + Greedy"))
    cells = planner.strip("| ").split(" | ")
    assert cells[2] == "llmco / greedy" and cells[3] == "160 [160, 160] (n=3)"
    assert cells[4].startswith("1.0 [") and cells[4].endswith("(n=3)") and cells[5].startswith("7.0 [")
    older = next(line for line in page.splitlines() if line.startswith("| forced_coordination (Forced) | Greedy"))
    assert older.strip("| ").split(" | ")[4:] == ["0.0 (n=1)", "13.0 (n=1)"]  # read from per_agent
    served = next(t for t in report["tables"] if t["name"] == "served")
    first = served["rows"][0]["first"]
    assert first["mean"] == 1.0 and first["n"] == 3 and first["ci95"] is not None
