"""Two teams compared on the same episodes, with paired bootstrap intervals: the ablation table's Δ against the
reference variant and CoELA's EI against the reference team.

Pairing removes what the episodes themselves contribute (a hard house is slow for both teams), so the interval
says how sure the difference is rather than how varied the episodes are. Runs pair by episode, seed and repeat.
When the two teams ran different replicates of the episodes they share, EI pairs by episode instead (each
episode's gain from the two teams' means, exactly as the printed EI is computed) and Δ, a difference of the two
teams' overall means, falls back to an unpaired two-sample bootstrap. The printed means are those of
`metrics.py`, unchanged; only the intervals are new.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from coopgraph.evals.intervals import (
    difference_interval,
    is_deterministic,
    mean_interval,
    percentile_interval,
    replicate_key,
    unit_key,
    unit_means,
)
from coopgraph.evals.metrics import Stat, efficiency_improvement, mean, row_value, steps_by_episode

REPLICATES = "episode, seed, repeat"
EPISODES = "episode"

Measured = dict[tuple[str, int, int], tuple[float, dict[str, Any]]]


def _measured(rows: list[dict[str, Any]], key: str) -> Measured:
    """The runs with a value for `key`, by what pairs them."""
    out: Measured = {}
    for row in rows:
        value = row_value(row, key)
        if value is not None:
            out[replicate_key(row)] = (value, row)
    return out


def _pair_unit(key: tuple[str, int, int], team_row: dict[str, Any], ref_row: dict[str, Any]) -> Hashable:
    """Two deterministic runs stand for their (episode, seed), like a single team's copies do."""
    if is_deterministic(team_row) and is_deterministic(ref_row):
        return "copies", key[0], key[1]
    return "pair", key


def _deterministic(team: Measured, ref: Measured) -> bool | None:
    flags = [is_deterministic(row) for _, row in (*team.values(), *ref.values())]
    return None if any(f is None for f in flags) else all(flags)


def paired_delta(team_rows: list[dict[str, Any]], ref_rows: list[dict[str, Any]], key: str) -> Stat | None:
    """mean(team) − mean(reference) of `key`, with a paired interval over the replicates when both teams ran the
    same ones (n = the team's runs)."""
    team, ref = _measured(team_rows, key), _measured(ref_rows, key)
    if not team or not ref:
        return None
    point = (mean(v for v, _ in team.values()) or 0.0) - (mean(v for v, _ in ref.values()) or 0.0)
    deterministic = _deterministic(team, ref)
    if set(team) == set(ref):
        keys = sorted(team)
        diffs = [team[k][0] - ref[k][0] for k in keys]
        units = unit_means(diffs, [_pair_unit(k, team[k][1], ref[k][1]) for k in keys])
        return Stat(point, n=len(keys), ci95=mean_interval(units), deterministic=deterministic, paired_by=REPLICATES)
    samples = []
    for measured in (team, ref):
        values, rows = [v for v, _ in measured.values()], [r for _, r in measured.values()]
        samples.append(unit_means(values, [unit_key(r, i) for i, r in enumerate(rows)]))
    return Stat(point, n=len(team), ci95=difference_interval(*samples), deterministic=deterministic)


def gain(team: np.ndarray, ref: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """CoELA's ΔM / max(M_team, M_ref) elementwise (0 where both are 0)."""
    delta = team - ref if higher_is_better else ref - team
    larger = np.maximum(team, ref)
    return np.divide(delta, larger, out=np.zeros_like(delta, dtype=float), where=larger != 0)


def improvement_interval(team: np.ndarray, ref: np.ndarray, episodes: np.ndarray, higher_is_better: bool
                         ) -> tuple[float, float] | None:
    """The interval of EI over paired units (one team value, one reference value, an episode code each): every
    resample averages its units per episode and takes each episode's gain as the EI does, then weighs the gains by
    the units it drew of the episode over the units it has, so that drawing an episode often counts as often
    (on the sample itself every weight is 1: the printed EI)."""
    size, count = len(team), int(episodes.max()) + 1 if len(episodes) else 0
    if size < 2:
        return None
    per_episode = np.bincount(episodes, minlength=count)

    def improvement(index: np.ndarray, axis: int = -1) -> np.ndarray:
        drawn = np.asarray(index, dtype=int)
        shape, flat = drawn.shape[:-1], drawn.reshape(-1, size)
        cells = (np.arange(flat.shape[0])[:, None] * count + episodes[flat]).ravel()
        total = flat.shape[0] * count
        runs = np.bincount(cells, minlength=total).reshape(-1, count)
        sums = [np.bincount(cells, weights=values[flat].ravel(), minlength=total).reshape(-1, count)
                for values in (team, ref)]
        seen = runs > 0
        means = [np.divide(s, runs, out=np.zeros_like(s), where=seen) for s in sums]
        weights = runs / per_episode
        gains = np.where(seen, gain(means[0], means[1], higher_is_better), 0.0)
        return np.asarray(((gains * weights).sum(axis=1) / weights.sum(axis=1)).reshape(shape))

    return percentile_interval((np.arange(size),), improvement)


def paired_improvement(team_rows: list[dict[str, Any]], ref_rows: list[dict[str, Any]], key: str = "steps"
                       ) -> Stat | None:
    """CoELA's EI of a team against the reference (`metrics.efficiency_improvement`, unchanged) with its paired
    interval; n = the pairs (or episodes) it is over. None when the two teams share no episode."""
    point = efficiency_improvement(team_rows, ref_rows, key)
    if point is None:
        return None
    higher = key == "transport_rate"
    team, ref = _measured(team_rows, key), _measured(ref_rows, key)
    deterministic = _deterministic(team, ref)
    shared = {k[0] for k in team} & {k[0] for k in ref}
    team_keys, ref_keys = {k for k in team if k[0] in shared}, {k for k in ref if k[0] in shared}
    if team_keys == ref_keys:
        keys = sorted(team_keys)
        unit_of = [_pair_unit(k, team[k][1], ref[k][1]) for k in keys]
        codes = {episode: i for i, episode in enumerate(sorted(shared))}
        episode_of = dict(zip(unit_of, (codes[k[0]] for k in keys), strict=True))
        interval = improvement_interval(np.asarray(unit_means([team[k][0] for k in keys], unit_of)),
                                        np.asarray(unit_means([ref[k][0] for k in keys], unit_of)),
                                        np.asarray(list(episode_of.values())), higher)
        return Stat(point, n=len(keys), ci95=interval, deterministic=deterministic, paired_by=REPLICATES)
    team_means, ref_means = steps_by_episode(team_rows, key), steps_by_episode(ref_rows, key)
    episodes = sorted(set(team_means) & set(ref_means))
    gains = gain(np.asarray([team_means[e] for e in episodes]), np.asarray([ref_means[e] for e in episodes]), higher)
    return Stat(point, n=len(episodes), ci95=mean_interval([float(g) for g in gains]), deterministic=deterministic,
                paired_by=EPISODES)
