"""Paired comparisons of two teams: identical teams differ by [0, 0], pairing sees a steady gain that episode
variety would hide, and teams with different replicates fall back to what still pairs them."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.evals.comparisons import EPISODES, REPLICATES, paired_delta, paired_improvement
from coopgraph.evals.intervals import difference_interval
from coopgraph.evals.metrics import efficiency_improvement

HOUSES = {"e0": 40.0, "e1": 120.0, "e2": 70.0, "e3": 200.0, "e4": 90.0, "e5": 150.0}


def _rows(offset: float, seeds: tuple[int, ...] = (0, 1), **extra: Any) -> list[dict[str, Any]]:
    """Runs whose steps are mostly the house's own difficulty, plus a small per-seed wobble."""
    return [{"episode": e, "seed": s, "repeat": 0, "steps": base + offset + 3 * s, **extra}
            for e, base in HOUSES.items() for s in seeds]


def test_a_team_compared_with_itself_differs_by_zero() -> None:
    rows = _rows(0.0)
    delta = paired_delta(rows, rows, "steps")
    assert delta is not None and delta.mean == 0 and delta.ci95 == (0.0, 0.0) and delta.paired_by == REPLICATES
    ei = paired_improvement(rows, [dict(r) for r in rows])
    assert ei is not None and ei.mean == 0 and ei.ci95 == pytest.approx((0.0, 0.0)) and ei.n == len(rows)


def test_pairing_sees_a_steady_gain_that_the_spread_of_houses_hides() -> None:
    team, ref = _rows(-10.0), _rows(0.0)
    team[0]["steps"] += 4  # not perfectly steady
    delta = paired_delta(team, ref, "steps")
    assert delta is not None and delta.ci95 is not None
    low, high = delta.ci95
    assert low <= delta.mean <= high < 0  # sure it is faster
    unpaired = difference_interval([r["steps"] for r in team], [r["steps"] for r in ref])
    assert unpaired is not None and unpaired[0] < 0 < unpaired[1]  # unpaired, the houses swamp the 10 steps
    ei = paired_improvement(team, ref)
    assert ei is not None and ei.mean == pytest.approx(efficiency_improvement(team, ref))
    assert ei.ci95 is not None and 0 < ei.ci95[0] <= ei.mean <= ei.ci95[1]


def test_teams_with_different_replicates_pair_by_episode_or_not_at_all() -> None:
    team, ref = _rows(-10.0, seeds=(0, 1, 2)), _rows(0.0, seeds=(0,))
    ei = paired_improvement(team, ref)
    assert ei is not None and ei.paired_by == EPISODES and ei.n == len(HOUSES)
    assert ei.mean == pytest.approx(efficiency_improvement(team, ref))  # the printed EI is unchanged
    assert ei.ci95 is not None and ei.ci95[0] <= ei.mean <= ei.ci95[1]
    delta = paired_delta(team, ref, "steps")
    assert delta is not None and delta.paired_by is None and delta.n == len(team)
    team_mean = sum(r["steps"] for r in team) / len(team)
    assert delta.mean == pytest.approx(team_mean - sum(r["steps"] for r in ref) / len(ref))


def test_deterministic_pairs_count_once_per_episode_and_seed() -> None:
    team = [{**r, "repeat": k} for r in _rows(-10.0, seeds=(0,), deterministic=True) for k in range(3)]
    ref = [{**r, "repeat": k} for r in _rows(0.0, seeds=(0,), deterministic=True) for k in range(3)]
    delta = paired_delta(team, ref, "steps")
    assert delta is not None and delta.deterministic is True and delta.n == 18 and delta.ci95 == (-10.0, -10.0)
    one = [r for r in team if r["episode"] == "e0"], [r for r in ref if r["episode"] == "e0"]
    single = paired_delta(*one, "steps")
    assert single is not None and single.ci95 is None and single.deterministic is True  # copies of one pair
    assert paired_improvement(team, [{**r, "episode": "other"} for r in ref]) is None  # no shared episode
