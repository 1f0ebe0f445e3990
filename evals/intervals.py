"""95% bootstrap intervals for the report's cells, over episodes × replicates, with scipy's bootstrap.

The resampling unit is one episode run (an episode, seed and repeat), except that runs flagged `deterministic`
(a replicate that can only repeat what the same episode and seed gave) count once per (episode, seed): copies
are not evidence. The interval is the percentile one: BCa's jackknife degenerates on the few-episode, often
constant cells these tables have, while the percentile interval always stays within the values seen. Each call
draws from a generator seeded the same way, so the same store always prints the same text.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

CONFIDENCE = 0.95
#: Enough for the endpoints to settle to the digits printed, few enough for a table of hundreds of runs in
#: milliseconds (about 2 ms a cell of 50 runs).
RESAMPLES = 2000
SEED = 34

Interval = tuple[float, float]


def is_deterministic(row: dict[str, Any]) -> bool | None:
    """The row's `deterministic` flag (a column, or in its metrics); None when the run did not record one."""
    value = row.get("deterministic")
    if value is None and isinstance(row.get("metrics"), dict):
        value = row["metrics"].get("deterministic")
    return None if value is None else bool(value)


def replicate_key(row: dict[str, Any]) -> tuple[str, int, int]:
    """What pairs two teams' runs: the same episode, seed and repeat."""
    return str(row.get("episode")), int(row.get("seed") or 0), int(row.get("repeat") or 0)


def unit_key(row: dict[str, Any], index: int) -> Hashable:
    """A deterministic run stands for its (episode, seed); any other run is a unit of its own."""
    if is_deterministic(row):
        return "copies", str(row.get("episode")), int(row.get("seed") or 0)
    return "run", index


def all_deterministic(rows: Sequence[dict[str, Any]]) -> bool | None:
    """True when every row says it is deterministic, False when every row says something and one says no,
    None when any row does not say (rows stored before the flag existed)."""
    flags = [is_deterministic(r) for r in rows]
    if not flags or any(f is None for f in flags):
        return None
    return all(flags)


def unit_means(values: Sequence[float], keys: Sequence[Hashable]) -> list[float]:
    """The mean value of each unit, in the order units first appear."""
    groups: dict[Hashable, list[float]] = {}
    for key, value in zip(keys, values, strict=True):
        groups.setdefault(key, []).append(value)
    return [sum(g) / len(g) for g in groups.values()]


def percentile_interval(data: tuple[np.ndarray, ...], statistic: Callable[..., Any], *, paired: bool = False
                        ) -> Interval:
    """scipy's percentile bootstrap of a vectorised statistic (one taking `axis`), from the fixed generator."""
    from scipy.stats import bootstrap  # seconds to import: only the commands that print intervals pay for it

    result = bootstrap(data, statistic, n_resamples=RESAMPLES, vectorized=True, paired=paired,
                       confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(SEED))
    low, high = result.confidence_interval
    return float(low), float(high)


def mean_interval(values: Sequence[float]) -> Interval | None:
    """The interval of the mean of independent values; None for fewer than two (nothing to resample)."""
    if len(values) < 2:
        return None
    if min(values) == max(values):
        return float(values[0]), float(values[0])
    return percentile_interval((np.asarray(values, dtype=float),), np.mean)


def ratio_interval(numerators: Sequence[float], denominators: Sequence[float]) -> Interval | None:
    """The interval of a pooled rate sum(numerators) / sum(denominators), resampling the (numerator, denominator)
    pairs together; units with a zero denominator add nothing to the rate and are left out."""
    pairs = [(a, b) for a, b in zip(numerators, denominators, strict=True) if b]
    if len(pairs) < 2:
        return None
    top = np.asarray([a for a, _ in pairs], dtype=float)
    bottom = np.asarray([b for _, b in pairs], dtype=float)

    def pooled(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(a.sum(axis=axis) / b.sum(axis=axis))

    if np.all(top / bottom == top[0] / bottom[0]):
        return float(top[0] / bottom[0]), float(top[0] / bottom[0])
    return percentile_interval((top, bottom), pooled, paired=True)


def difference_interval(first: Sequence[float], second: Sequence[float]) -> Interval | None:
    """The interval of mean(first) − mean(second) for two independent samples (teams that ran different
    replicates, so nothing pairs them)."""
    if len(first) < 2 or len(second) < 2:
        return None

    def difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(a.mean(axis=axis) - b.mean(axis=axis))

    if min(first) == max(first) and min(second) == max(second):
        gap = float(first[0]) - float(second[0])
        return gap, gap
    return percentile_interval((np.asarray(first, dtype=float), np.asarray(second, dtype=float)), difference)
