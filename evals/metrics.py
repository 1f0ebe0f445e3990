"""Team-level metrics from stored episode rows, defined as the papers define them.

- success rate and average steps L (CoELA section 5.1; REVECA's SS is the same count of steps);
- Efficiency Improvement EI = ΔM / M0 with M the steps, ΔM the reference team's steps minus this team's,
  and M0 the larger of the two (CoELA 5.1), computed per episode and averaged over episodes both teams ran; on
  TDW-MAT M is the transport rate and ΔM this team's rate minus the reference's (CoELA's table 1 EI);
- TD = travel distance per agent (m), CS = messages sent, CC = characters per message (REVECA section 5.2);
- cost: LLM calls, prompt / completion tokens, prompt tokens per decision, invalid answers, wall time;
- steps / oracle bound: how far a team is from the admissible lower bound of envs/cwah/experts/oracle.py;
- CaPo tables 8-9 (`capo_stats.py`), for teams whose episodes discussed a meta-plan: the share of discussions
  without consensus is pooled over the team's discussions (not a mean of per-episode shares), the others are
  per-episode means.

Every mean carries a 95% bootstrap interval over the runs (episodes × seeds × repeats, `intervals.py`); a
comparison with the reference team (EI) a paired one (`comparisons.py`). The std over replicates and the min–max
are kept beside them for the CSV files.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from coopgraph.evals.capo_stats import CAPO_METRICS
from coopgraph.evals.intervals import all_deterministic, mean_interval, ratio_interval, unit_key, unit_means

# metric key → what it means (keys are row fields, except the two derived ones)
METRICS: dict[str, str] = {
    "success": "success rate",
    "steps": "average steps L / SS",
    "travel_distance_per_agent": "TD (m per agent)",
    "travel_distance": "travel distance, all agents (m)",
    "communication_steps": "CS (messages)",
    "characters_sent": "characters sent",
    "characters_per_message": "CC (characters per message)",
    "subgoals_done": "subgoals done",
    "invalid_actions": "invalid actions",
    "llm_calls": "LLM calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "completion tokens",
    "decisions": "decisions",
    "prompt_tokens_per_decision": "prompt tokens per decision",
    "invalid_answers": "invalid answers",
    "wall_time_s": "wall time (s)",
    "oracle_bound": "oracle bound (steps)",
    "steps_over_bound": "steps / oracle bound",
    **CAPO_METRICS,
}
# REVECA's names for four of them (section 5.2)
REVECA_METRICS = {"ss": "steps", "td": "travel_distance_per_agent", "cs": "communication_steps",
                  "cc": "characters_per_message"}


def row_value(row: dict[str, Any], key: str) -> float | None:
    """One metric of one episode row, including the derived ones."""
    if key == "prompt_tokens_per_decision":
        decisions = row.get("decisions") or row.get("llm_calls") or 0
        return (row.get("prompt_tokens") or 0) / decisions if decisions else None
    if key == "steps_over_bound":
        bound = row.get("oracle_bound")
        return row["steps"] / bound if bound else None
    value = row.get(key)
    if value is None and isinstance(row.get("metrics"), dict):
        value = row["metrics"].get(key)
    return None if value is None else float(value)


def mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


@dataclass
class Stat:
    """A mean with its 95% bootstrap interval over the runs (`ci95`, None when there is nothing to resample) and
    the number of runs `n`. `deterministic` says whether every run was flagged as such (None: some run did not
    say). A comparison of two teams names what paired its runs (`paired_by`; None when nothing could). `std` (over
    replicates) and `low`–`high` (over replicates, else episodes) are kept for the CSV files."""

    mean: float | None
    std: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    ci95: tuple[float, float] | None = None
    deterministic: bool | None = None
    paired_by: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "std": self.std, "min": self.low, "max": self.high, "n": self.n,
                "ci95": list(self.ci95) if self.ci95 else None, "deterministic": self.deterministic}

    def cell(self) -> dict[str, Any]:
        """What `report --json` gives for a table cell."""
        data: dict[str, Any] = {"mean": self.mean, "ci95": list(self.ci95) if self.ci95 else None, "n": self.n,
                                "deterministic": self.deterministic}
        if self.paired_by is not None:
            data["paired_by"] = self.paired_by
        return data


def replicate(row: dict[str, Any]) -> tuple[int, int]:
    return (int(row["seed"]), int(row["repeat"]))


def stat(rows: list[dict[str, Any]], key: str) -> Stat:
    values = [(replicate(r), row_value(r, key)) for r in rows]
    present = [v for _, v in values if v is not None]
    if not present:
        return Stat(None, n=0)
    groups: dict[tuple[int, int], list[float]] = {}
    for rep, v in values:
        if v is not None:
            groups.setdefault(rep, []).append(v)
    overall = sum(present) / len(present)
    measured = [r for r, (_, v) in zip(rows, values, strict=True) if v is not None]
    spread = interval_of(measured, present)
    if len(groups) > 1:
        means = [sum(g) / len(g) for g in groups.values()]
        return Stat(overall, std=statistics.stdev(means), low=min(means), high=max(means), n=len(present), **spread)
    return Stat(overall, low=min(present), high=max(present), n=len(present), **spread)


def interval_of(rows: list[dict[str, Any]], values: list[float]) -> dict[str, Any]:
    """The bootstrap interval of the mean of `values` (one per row) over the rows' units, and whether they are
    all deterministic: `Stat` fields."""
    units = unit_means(values, [unit_key(r, i) for i, r in enumerate(rows)])
    return {"ci95": mean_interval(units), "deterministic": all_deterministic(rows)}


def steps_by_episode(rows: list[dict[str, Any]], key: str = "steps") -> dict[str, float]:
    """Mean of `key` (steps by default) per episode over its seeds and repeats."""
    per: dict[str, list[float]] = {}
    for row in rows:
        value = row_value(row, key)
        if value is not None:
            per.setdefault(row["episode"], []).append(value)
    return {episode: sum(v) / len(v) for episode, v in per.items()}


def mean_improvement(team: dict[str, float], reference: dict[str, float], higher_is_better: bool = False
                     ) -> float | None:
    """CoELA's EI from per-episode means: ΔM / max(M_team, M_ref) per shared episode, averaged. ΔM is the
    reference's steps minus the team's (fewer is better), or the team's transport rate minus the reference's."""
    gains = []
    for episode in sorted(set(team) & set(reference)):
        delta = team[episode] - reference[episode] if higher_is_better else reference[episode] - team[episode]
        m0 = max(team[episode], reference[episode])
        gains.append(delta / m0 if m0 else 0.0)
    return sum(gains) / len(gains) if gains else None


def efficiency_improvement(team_rows: list[dict[str, Any]], reference_rows: list[dict[str, Any]],
                           key: str = "steps") -> float | None:
    """CoELA's EI of a team against the reference (single-agent) team, averaged over shared episodes: on steps
    (C-WAH), or on `transport_rate` (TDW-MAT, where more is better)."""
    higher = key == "transport_rate"
    return mean_improvement(steps_by_episode(team_rows, key), steps_by_episode(reference_rows, key), higher)


@dataclass
class TeamSummary:
    """Everything the tables need about one team of one suite."""

    suite: str
    team: str
    members: list[str]
    episodes: int
    errors: int
    stats: dict[str, Stat] = field(default_factory=dict)
    ei: float | None = None
    ei_stat: Stat | None = None

    def mean_of(self, key: str) -> float | None:
        s = self.stats.get(key)
        return s.mean if s else None

    @property
    def has_capo(self) -> bool:
        """True when the team's episodes discussed a meta-plan (CaPo statistics are present)."""
        return self.mean_of("capo_meta_plans") is not None

    def as_dict(self) -> dict[str, Any]:
        papers: dict[str, Any] = {"reveca": {name: self.mean_of(key) for name, key in REVECA_METRICS.items()}}
        if self.has_capo:
            papers["capo"] = {key: self.mean_of(key) for key in CAPO_METRICS}
        return {"suite": self.suite, "team": self.team, "members": self.members, "episodes": self.episodes,
                "errors": self.errors, "ei": self.ei, "ei_interval": self.ei_stat.cell() if self.ei_stat else None,
                "metrics": {k: s.mean for k, s in self.stats.items()},
                "spread": {k: s.as_dict() for k, s in self.stats.items()}, "papers": papers}


def summarize(suite: str, team: str, rows: list[dict[str, Any]], errors: int = 0,
              reference_rows: list[dict[str, Any]] | None = None) -> TeamSummary:
    from coopgraph.evals.comparisons import paired_improvement  # built on this module's EI: imported late

    members = rows[0]["members"] if rows else []
    summary = TeamSummary(suite=suite, team=team, members=members, episodes=len(rows), errors=errors)
    summary.stats = {key: stat(rows, key) for key in METRICS}
    summary.stats["capo_failure_rate"] = pooled_failure_rate(rows, summary.stats["capo_failure_rate"])
    if reference_rows is not None and rows:
        key = "transport_rate" if any(row_value(r, "transport_rate") is not None for r in rows) else "steps"
        summary.ei_stat = paired_improvement(rows, reference_rows, key)
        summary.ei = summary.ei_stat.mean if summary.ei_stat else None
    return summary


def pooled_failure_rate(rows: list[dict[str, Any]], per_episode: Stat) -> Stat:
    """CaPo table 8's rate over all the team's settled discussions, its interval resampling the runs' (failed,
    settled) counts together; std and range stay the per-episode ones."""
    settled = sum(row_value(r, "capo_discussions") or 0 for r in rows)
    if not settled:
        return per_episode
    failed = sum(row_value(r, "capo_no_consensus") or 0 for r in rows)
    keys = [unit_key(r, i) for i, r in enumerate(rows)]
    interval = ratio_interval(unit_means([row_value(r, "capo_no_consensus") or 0.0 for r in rows], keys),
                              unit_means([row_value(r, "capo_discussions") or 0.0 for r in rows], keys))
    return Stat(failed / settled, std=per_episode.std, low=per_episode.low, high=per_episode.high, n=per_episode.n,
                ci95=interval, deterministic=per_episode.deterministic)


def dummy_objects(row: dict[str, Any]) -> int:
    """Noisy-C-WAH's number of dummy objects for a row (cwah-noisy defaults to 10)."""
    options = row.get("env_options") or {}
    default = 10 if row.get("env") == "cwah-noisy" else 0
    return int(options.get("noise", default))
