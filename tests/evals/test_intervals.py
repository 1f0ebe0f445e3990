"""Bootstrap intervals of the report's cells: around the mean, narrower with more runs, reproducible, none for one
run, and deterministic replicates counted once per episode and seed."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.evals.intervals import all_deterministic, mean_interval, ratio_interval
from coopgraph.evals.metrics import Stat, stat
from coopgraph.evals.tables import stat_text

SPREAD = [3.0, 9.0, 4.0, 12.0, 7.0, 5.0, 10.0, 6.0]


def _row(episode: str, steps: float, seed: int = 0, repeat: int = 0, **extra: Any) -> dict[str, Any]:
    return {"episode": episode, "seed": seed, "repeat": repeat, "steps": steps, **extra}


def test_the_interval_holds_the_mean_and_narrows_with_more_runs() -> None:
    widths = []
    for copies in (1, 4, 16):
        values = SPREAD * copies
        low, high = mean_interval(values) or (0.0, 0.0)
        assert low < sum(values) / len(values) < high
        widths.append(high - low)
    assert widths[0] > 1.8 * widths[1] > 1.8 * 1.8 * widths[2]  # about 1/sqrt(n): halves when n is 4 times larger


def test_the_same_values_give_the_same_interval_and_one_value_gives_none() -> None:
    assert mean_interval(SPREAD) == mean_interval(list(SPREAD))
    assert mean_interval([5.0]) is None and mean_interval([]) is None
    assert mean_interval([2.0, 2.0, 2.0]) == (2.0, 2.0)


def test_a_single_run_says_n_1_instead_of_an_interval() -> None:
    one = stat([_row("e0", 42.0)], "steps")
    assert one.ci95 is None and one.n == 1 and one.deterministic is None
    assert stat_text(one) == "42.0 (n=1)"
    two = stat([_row("e0", 40.0), _row("e1", 60.0)], "steps")
    assert two.ci95 is not None and stat_text(two) == f"50.0 [{two.ci95[0]:.1f}, {two.ci95[1]:.1f}] (n=2)"
    assert stat_text(Stat(0.25, ci95=(-0.1, 0.4), n=9), fmt="stat_signed_pct") == "↑25% [↓10%, ↑40%] (n=9)"


def test_deterministic_copies_of_one_run_print_no_spread() -> None:
    copies = [_row("e0", 70.0, seed=0, repeat=r, deterministic=True) for r in range(3)]
    cell = stat(copies, "steps")
    assert cell.mean == 70 and cell.ci95 is None and cell.deterministic is True and cell.n == 3
    assert stat_text(cell) == "70.0 (n=3, deterministic)"
    assert Stat(70.0, n=3, deterministic=True).cell() == {"mean": 70.0, "ci95": None, "n": 3, "deterministic": True}


def test_deterministic_replicates_count_once_per_episode_and_seed() -> None:
    rows = [_row(e, v, repeat=r, deterministic=True) for e, v in (("e0", 10.0), ("e1", 30.0)) for r in range(3)]
    cell = stat(rows, "steps")
    assert cell.n == 6 and cell.deterministic is True
    assert cell.ci95 == mean_interval([10.0, 30.0])  # two units, not six
    sampled = stat([{**r, "deterministic": False} for r in rows], "steps")
    assert sampled.deterministic is False and sampled.ci95 == mean_interval([10.0, 30.0] * 3)


def test_a_missing_flag_is_unknown_and_the_interval_is_the_usual_one() -> None:
    rows = [_row("e0", 10.0, repeat=0, deterministic=True), _row("e0", 14.0, repeat=1)]
    assert all_deterministic(rows) is None
    assert all_deterministic([{"metrics": {"deterministic": 1.0}}]) is True  # read from the metrics too
    cell = stat(rows, "steps")
    assert cell.deterministic is None and cell.ci95 == mean_interval([10.0, 14.0])


def test_a_pooled_rate_resamples_numerator_and_denominator_together() -> None:
    failed, settled = [1.0, 0.0, 2.0, 1.0, 0.0], [2.0, 1.0, 4.0, 1.0, 0.0]
    low, high = ratio_interval(failed, settled) or (0.0, 0.0)
    assert low < 4 / 8 < high and low >= 0.0 and high <= 1.0
    assert ratio_interval([1.0], [2.0]) is None
    assert ratio_interval([1.0, 2.0], [2.0, 4.0]) == pytest.approx((0.5, 0.5))
