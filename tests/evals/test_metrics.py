"""Metric definitions: EI as in CoELA, spread over replicates or episodes, derived per-decision and bound ratios."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.evals.metrics import dummy_objects, efficiency_improvement, row_value, stat, summarize


def _row(episode: str, steps: float, seed: int = 0, repeat: int = 0, **extra: Any) -> dict[str, Any]:
    return {"episode": episode, "steps": steps, "seed": seed, "repeat": repeat, "success": 1.0, **extra}


def test_ei_uses_the_larger_of_the_two_and_averages_per_episode() -> None:
    solo = [_row("e0", 111), _row("e1", 100)]
    pair = [_row("e0", 75), _row("e1", 125)]
    # e0: (111-75)/111; e1: (100-125)/125 (the team is slower: M0 is the team's own steps)
    assert efficiency_improvement(pair, solo) == pytest.approx(((111 - 75) / 111 + (100 - 125) / 125) / 2)
    seeds = [_row("e0", 70, seed=0), _row("e0", 80, seed=1)]  # episode mean over seeds first
    assert efficiency_improvement(seeds, [_row("e0", 100)]) == pytest.approx(0.25)
    assert efficiency_improvement([_row("e9", 10)], solo) is None  # no shared episode


def test_spread_is_std_over_replicates_or_range_over_episodes() -> None:
    one = stat([_row("e0", 10), _row("e1", 30)], "steps")
    assert (one.mean, one.std, one.low, one.high) == (20, None, 10, 30)
    two = stat([_row("e0", 10, seed=0), _row("e1", 30, seed=0), _row("e0", 20, seed=1), _row("e1", 40, seed=1)],
               "steps")
    assert two.mean == 25 and two.std == pytest.approx(7.0710678) and (two.low, two.high) == (20, 30)
    assert stat([], "steps").mean is None


def test_derived_metrics() -> None:
    row = _row("e0", 60, prompt_tokens=900, decisions=3, llm_calls=6, oracle_bound=30.0)
    assert row_value(row, "prompt_tokens_per_decision") == 300
    assert row_value(row, "steps_over_bound") == 2.0
    assert row_value(_row("e0", 60, oracle_bound=None), "steps_over_bound") is None
    assert row_value({"metrics": {"travel_distance": 12.5}}, "travel_distance") == 12.5
    assert dummy_objects({"env": "cwah-noisy", "env_options": {}}) == 10
    assert dummy_objects({"env": "cwah-noisy", "env_options": {"noise": 20}}) == 20
    assert dummy_objects({"env": "cwah", "env_options": {}}) == 0


def test_summary_has_every_metric_and_the_ei() -> None:
    rows = [_row("e0", 50, members=["mhp", "mhp"], characters_per_message=100.0)]
    summary = summarize("s", "pair", rows, errors=1, reference_rows=[_row("e0", 100)])
    assert summary.ei == pytest.approx(0.5) and summary.episodes == 1 and summary.errors == 1
    data = summary.as_dict()
    assert data["metrics"]["steps"] == 50 and data["metrics"]["characters_per_message"] == 100
    assert {"success", "travel_distance_per_agent", "communication_steps", "prompt_tokens", "invalid_answers",
            "wall_time_s", "steps_over_bound"} <= set(data["metrics"])
