"""The TDW-MAT report: CaPo table 1's shape (food / stuff / total transport rate, EI against RHP) with the papers'
numbers in their own labelled column; and the shipped tdw-mat-comparison suite loads with every method's team."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coopgraph.evals.report import collect, write_report
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import load_suite


def _row(team: str, members: list[str], episode: str, rate: float, food: bool) -> dict[str, Any]:
    return {"run_id": f"{team}{episode}", "suite": "tdw-mat-comparison", "team": team, "env": "tdw-mat",
            "env_options": {"perception": "oracle"}, "episode": episode, "seed": 0, "repeat": 0, "config_hash": "c",
            "status": "done", "success": float(rate == 1.0), "steps": 3000, "max_steps": 3000, "members": members,
            "metrics": {"transport_rate": rate, "task_food": float(food), "frames": 3000, "communication_steps": 2},
            "invalid_answers": 0.0, "llm_calls": 10, "prompt_tokens": 1000, "decisions": 10, "wall_time_s": 2.0,
            "finished_at": 1.0}


def test_the_report_has_capos_table_1_with_the_paper_column_apart(tmp_path: Path) -> None:
    suite, path, text = load_suite("tdw-mat-comparison")
    with ResultStore(tmp_path) as store:
        store.save_suite(suite.name, str(path), text)
        for team, members, rates in (("RHP", ["rhp"], (0.4, 0.5)), ("CaPo + CaPo", ["capo", "capo"], (0.8, 0.6))):
            store.record(_row(team, members, "train/0", rates[0], True))
            store.record(_row(team, members, "train/12", rates[1], False))
    (result,) = collect(tmp_path)
    page = Path(write_report(tmp_path)["report"]).read_text(encoding="utf-8")
    assert "transport rate with oracle perception — CaPo table 1 layout" in page
    assert "| Team | Episodes | Food TR ↑ | Stuff TR ↑ | Total TR ↑ | EI vs RHP | Frames | Message frames |" \
        " paper: Food / Stuff / Total TR % (EI) |" in page
    capo = next(line for line in page.splitlines() if line.startswith("| CaPo + CaPo |"))
    cells = [c.strip() for c in capo.strip("|").split("|")]
    # EI per episode: (0.8-0.4)/0.8 = 50%, (0.6-0.5)/0.6 = 17%; mean 33%
    assert cells[1:6] == ["2", "80%", "60%", "70% [60%–80%]", "↑33%"]
    assert "CaPo t.1: 90 / 87 / 89 (EI 39%) — GPT-4" in cells[-1]
    rhp = next(line for line in page.splitlines() if line.startswith("| RHP |"))
    assert "CoELA t.1: 52 / 49 / 50" in rhp and "| – |" in rhp  # no EI of the reference against itself
    assert "Average steps" not in page  # no steps-to-success tables for a world scored by transport rate
    assert result.summaries["RHP"].episodes == 2


def test_the_shipped_suite_pairs_every_method_with_rhp_and_itself() -> None:
    suite, _, _ = load_suite("tdw-mat-comparison")
    assert suite.environment.name == "tdw-mat" and suite.environment.options == {"perception": "oracle"}
    assert len(suite.episode_ids()) == 24 and suite.reference_team() == "RHP"
    members = {tuple(m.name for m in t.members) for t in suite.teams}
    assert {("rhp",), ("rhp", "rhp"), ("rhp", "coela"), ("coela", "coela"), ("capo", "capo"), ("capo", "coela"),
            ("rhp", "capo"), ("reveca", "reveca"), ("rhp", "reveca")} <= members
