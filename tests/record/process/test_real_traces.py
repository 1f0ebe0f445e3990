"""Process measures of real runs of scripted teams in every world, read back from their trace files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import coopgraph
from coopgraph.record.process import NotAvailable, ProcessMeasures, process_measures
from coopgraph.record.trace_file import read_events
from coopgraph.testing.chat import scripted_lm


def _measure(result: coopgraph.RunResult | Path) -> tuple[ProcessMeasures, list[dict[str, Any]]]:
    trace = result if isinstance(result, Path) else result.trace_path
    assert trace is not None
    events = read_events(trace)
    return process_measures(events), events


def _end(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "episode_end")


def _check_whole(m: ProcessMeasures) -> None:
    """What holds in any run: shares of progress add up, the team's conflicts are its agents', spans lie inside."""
    shares = [v["work_share"] for v in m.agents.values()]
    if not isinstance(shares[0], NotAvailable):
        assert sum(shares) == pytest.approx(1.0) and m.team["work_share"] == max(shares)  # type: ignore[type-var]
    assert m.team["conflicts"] == sum(v["conflicts"] for v in m.agents.values())  # type: ignore[misc]
    for agent, values in m.agents.items():
        assert 0 <= values["idle_share"] <= 1  # type: ignore[operator]
        assert all(1 <= start <= end <= m.time for start, end in m.marks[agent]["idle"])


def test_cwah_mhp_pair(traces: dict[str, Path]) -> None:
    m, events = _measure(traces["pair"])
    _check_whole(m)
    assert (m.unit, m.time) == ("steps", _end(events)["steps"])
    assert m.work_source is not None and "subgoals_done" in m.work_source  # C-WAH credits each put-down
    assert all(m.agents[a]["work_share"] > 0 for a in m.agents)  # type: ignore[operator]
    unavailable = {k for k, v in m.team.items() if isinstance(v, NotAvailable)}
    assert unavailable == {"partner_wait"}


def test_tdw_mat_rule_based_pair(tmp_path: Path) -> None:
    result = coopgraph.run(env="tdw-mat", team=["rhp", "rhp"], out=tmp_path, keep_checkpoints=False)
    m, events = _measure(result)
    _check_whole(m)
    assert (m.unit, m.time) == ("frames", _end(events)["steps"])
    assert isinstance(m.team["work_share"], NotAvailable)  # TDW-MAT counts deliveries for the team only
    assert not isinstance(m.team["duplicated"], NotAvailable)  # computable: grasps name their objects


def test_overcooked_greedy_pair(tmp_path: Path) -> None:
    result = coopgraph.run(env="overcooked", team=["greedy", "greedy"], out=tmp_path, keep_checkpoints=False)
    m, events = _measure(result)
    _check_whole(m)
    assert m.unit == "ticks" and m.team["idle"] > 0  # type: ignore[operator]
    assert isinstance(m.team["duplicated"], NotAvailable)
    deliveries = {a: v["deliveries"] for a, v in _end(events)["per_agent"].items()}
    assert m.agents["alice"]["work_share"] == deliveries["alice"] / sum(deliveries.values())


@pytest.mark.parametrize("game", ["collab-capture", "collab-escape"])
def test_collab_planner_pair(game: str, tmp_path: Path) -> None:
    result = coopgraph.run(env=game, team=["collab-planner", "collab-planner"], out=tmp_path, keep_checkpoints=False)
    m, _ = _measure(result)
    _check_whole(m)
    assert m.unit == "turns" and m.team["conflicts"] == 0
    if game == "collab-escape":
        assert m.work_source == "episode_end per_agent.fixes"


def test_graph_team_on_the_scripted_model_waits_for_its_answers(tmp_path: Path) -> None:
    result = coopgraph.run(env="cwah", episode="test/0", team=["coela", "coela"], llm=lambda: scripted_lm(["A"]),
                           max_steps=6, out=tmp_path, keep_checkpoints=False)
    m, events = _measure(result)
    _check_whole(m)
    for agent in m.agents:
        waited = sum(e.get("latency_s") or 0 for e in events if e["type"] == "llm_call" and e.get("agent") == agent)
        assert waited > 0 and m.agents[agent]["model_wait_s"] == pytest.approx(waited)
    assert not isinstance(m.team["plan_changes"], NotAvailable)  # graph agents choose plans
