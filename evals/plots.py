"""Report plots as PNG files (matplotlib, Agg backend, so they render without a display).

Steps per team with error bars to the ends of their 95% bootstrap intervals (the tables' own), the cumulative
progress curve (fraction of subgoals done against steps, like CaPo's figure 5), and prompt tokens per decision
against Noisy-C-WAH's number of dummy objects, again with 95% intervals.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from coopgraph.evals.intervals import mean_interval
from coopgraph.evals.metrics import Stat, dummy_objects, row_value

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("plots need matplotlib: pip install 'matplotlib>=3.8'") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def error_bar(s: Stat) -> tuple[float, float]:
    """Below/above the mean: to the ends of the 95% interval the tables print (none without one)."""
    if s.mean is None or s.ci95 is None:
        return 0.0, 0.0
    return max(0.0, s.mean - s.ci95[0]), max(0.0, s.ci95[1] - s.mean)


def steps_bar(results: SuiteResults, path: Path) -> Path | None:
    teams = [(label, s.stats["steps"]) for label, s in results.summaries.items() if s.stats["steps"].mean is not None]
    if not teams:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(4.0, 1.3 * len(teams) + 1.5), 3.6), dpi=110)
    means = [s.mean for _, s in teams]
    spread = [error_bar(s) for _, s in teams]
    ax.bar(range(len(teams)), means, yerr=[[lo for lo, _ in spread], [hi for _, hi in spread]], capsize=4,
           color="#4c78a8")
    ax.set_xticks(range(len(teams)), [label for label, _ in teams], rotation=20, ha="right")
    ax.set_ylabel("average steps (lower is better)")
    ax.set_title(f"{results.name}: steps per team (95% intervals)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def progress_fraction(row: dict[str, Any], horizon: int) -> list[float]:
    """Fraction of subgoals done after each step 0..horizon, holding the last value after the episode ends."""
    total = row.get("subgoals_total") or 0
    points = sorted(row.get("progress") or [])
    out, done, index = [], 0.0, 0
    for step in range(horizon + 1):
        while index < len(points) and points[index][0] <= step:
            done = float(points[index][1])
            index += 1
        out.append(done / total if total else 0.0)
    return out


def progress_curve(results: SuiteResults, path: Path) -> Path | None:
    curves = {}
    for label, rows in results.teams.items():
        rows = [r for r in rows if r.get("progress")]
        if not rows:
            continue
        horizon = int(max(r.get("max_steps") or r["steps"] for r in rows))
        series = [progress_fraction(r, horizon) for r in rows]
        curves[label] = [sum(values) / len(series) for values in zip(*series, strict=True)]
    if not curves:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 3.6), dpi=110)
    for label, curve in curves.items():
        ax.plot(range(len(curve)), [100 * v for v in curve], label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("subgoals done (%)")
    ax.set_ylim(0, 102)
    ax.set_title(f"{results.name}: cumulative progress")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def tokens_vs_noise(rows: list[dict[str, Any]], path: Path) -> Path | None:
    """Only when the store holds LLM runs at two or more dummy-object counts."""
    points: dict[str, dict[int, list[float]]] = {}
    for row in rows:
        value = row_value(row, "prompt_tokens_per_decision")
        if value is None or not row.get("prompt_tokens"):
            continue
        team = "+".join(row.get("members") or [row["team"]])
        points.setdefault(team, {}).setdefault(dummy_objects(row), []).append(value)
    points = {team: per for team, per in points.items() if len(per) >= 2}
    if not points:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    for team, per in sorted(points.items()):
        xs = sorted(per)
        cells = [Stat(sum(per[x]) / len(per[x]), ci95=mean_interval(per[x])) for x in xs]
        bars = [error_bar(s) for s in cells]
        ax.errorbar(xs, [s.mean for s in cells], yerr=[[lo for lo, _ in bars], [hi for _, hi in bars]], marker="o",
                    capsize=3, label=team)
    ax.set_xlabel("dummy objects (Noisy-C-WAH)")
    ax.set_ylabel("prompt tokens per decision")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def suite_plots(results: SuiteResults, out_dir: Path) -> list[Path]:
    made = [steps_bar(results, out_dir / f"{results.name}-steps.png"),
            progress_curve(results, out_dir / f"{results.name}-progress.png")]
    return [p for p in made if p is not None]
