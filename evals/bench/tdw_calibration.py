"""Calibrate TDW-MAT against CoELA table 1: fit the walking cost to RHP alone with oracle perception (0.50), then
the detector's food and stuff miss rates to RHP alone without it (0.49 / 0.36), and print every RHP cell beside the
paper's (RHP+RHP and the splits are held out: nothing is refitted for them).

Why `frames_per_move`: walking is most of an RHP episode's frames, and a grasp's walk is charged at the same metres
per frame, so this one number sets how far an agent gets in 3000 frames (the text world has no furniture to walk
around, which makes it faster than TDW). It stays a whole number of frames; one frame moves RHP's rate by about
0.03, inside the ±0.04 the spec asks. The rate falls as moves get dearer and rises as misses get rarer, so each
fit is a bisection on a mean over the same episodes and seeds (common random numbers).

Run: `python -m coopgraph.evals.bench.tdw_calibration [--dataset DIR] [--seeds 3] [--check]`; `--check` only
measures the current defaults. Single process; the shipped train split takes a few minutes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coopgraph.envs import make
from coopgraph.envs.partners import make_partner
from coopgraph.envs.tdw_mat.episode import Dataset, train_episodes
from coopgraph.envs.tdw_mat.rules import TDWRules
from coopgraph.evals.metrics import mean_improvement
from coopgraph.runtime.episode_loop import run_episode

#: CoELA table 1 (test split), food / stuff / total and EI against RHP alone.
PAPER = {("RHP", "oracle"): (0.52, 0.49, 0.50, None), ("RHP+RHP", "oracle"): (0.76, 0.74, 0.75, 0.34),
         ("RHP", "detector"): (0.49, 0.36, 0.43, None), ("RHP+RHP", "detector"): (0.67, 0.54, 0.61, 0.29)}
TEAMS = {"RHP": 1, "RHP+RHP": 2}
MOVE_RANGE = (6, 40)
MISS_STEPS = 8  # bisection halvings of [0, 0.99]: a resolution of 0.004


@dataclass
class Cell:
    """One team's per-episode mean transport rates under one setting."""

    rates: dict[str, float]  # episode -> mean over seeds
    tasks: dict[str, str]

    def mean(self, task: str | None = None) -> float:
        values = [r for e, r in self.rates.items() if task is None or self.tasks[e] == task]
        return sum(values) / len(values) if values else float("nan")


def episode_ids(dataset: str | None) -> list[str]:
    if dataset is None:
        return [f"train/{i}" for i in range(len(train_episodes()))]
    return [str(i) for i in range(len(Dataset(dataset).keys()))]


def play(episodes: list[str], agents: int, seeds: int, dataset: str | None, **rules: Any) -> Cell:
    """RHP (`agents` of them) on every episode with every seed; per-episode mean transport rates."""
    rates, tasks = {}, {}
    options: dict[str, Any] = {"dataset": dataset} if dataset else {}
    for episode in episodes:
        env = make("tdw-mat", episode=episode, num_agents=agents, **options, **rules)
        total = 0.0
        for seed in range(seeds):
            result = run_episode(env, [make_partner("rhp") for _ in range(agents)], seed=seed)
            total += result.number("transport_rate")
        rates[episode], tasks[episode] = total / seeds, env.episode.task
    return Cell(rates, tasks)


def fit_moves(measure: Callable[[int], float], target: float, log: Callable[[str], None]) -> int:
    """The whole `frames_per_move` whose rate is nearest `target` (the rate falls as moves get dearer)."""
    low, high = MOVE_RANGE
    seen: dict[int, float] = {}

    def rate(value: int) -> float:
        if value not in seen:
            seen[value] = measure(value)
            log(f"  frames_per_move={value}: {seen[value]:.3f}")
        return seen[value]

    while high - low > 1:  # invariant: rate(low) > target >= rate(high), when the range brackets it
        middle = (low + high) // 2
        if rate(middle) > target:
            low = middle
        else:
            high = middle
    return min((low, high), key=lambda v: abs(rate(v) - target))


def fit_miss(measure: Callable[[float], float], target: float, log: Callable[[str], None], label: str) -> float:
    """The miss probability whose rate is nearest `target` (the rate falls as misses get likelier)."""
    low, high = 0.0, 0.99
    at_low = measure(low)
    log(f"  p_miss[{label}]=0: {at_low:.3f}")
    if at_low <= target:
        return 0.0  # even a perfect detector is below the target: misses cannot help
    for _ in range(MISS_STEPS):
        middle = (low + high) / 2
        rate = measure(middle)
        log(f"  p_miss[{label}]={middle:.3f}: {rate:.3f}")
        low, high = (middle, high) if rate > target else (low, middle)
    return round((low + high) / 2, 3)


def table(cells: dict[tuple[str, str], Cell]) -> str:
    rows = ["| team | perception | here: food / stuff / total (EI) | CoELA t.1: food / stuff / total (EI) |",
            "|---|---|---|---|"]
    for (team, perception), cell in cells.items():
        solo = cells.get(("RHP", perception))
        ei = mean_improvement(cell.rates, solo.rates, higher_is_better=True) if solo and team != "RHP" else None
        ours = f"{cell.mean('food'):.2f} / {cell.mean('stuff'):.2f} / {cell.mean():.2f}"
        ours += f" ({ei * 100:.0f}%)" if ei is not None else ""
        food, stuff, total, paper_ei = PAPER[(team, perception)]
        paper = f"{food:.2f} / {stuff:.2f} / {total:.2f}" + (f" ({paper_ei * 100:.0f}%)" if paper_ei else "")
        rows.append(f"| {team} | {perception} | {ours} | {paper} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=None, help="a CoELA dataset folder (default: the shipped train split)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per episode (RHP chooses at random)")
    parser.add_argument("--check", action="store_true", help="measure the current defaults, fit nothing")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    episodes = episode_ids(args.dataset)
    defaults = TDWRules()
    moves, p_miss = defaults.frames_per_move, dict(defaults.p_miss)

    def log(text: str) -> None:
        print(f"[{time.perf_counter() - started:5.0f} s] {text}", flush=True)

    def run(agents: int, perception: str, **rules: Any) -> Cell:
        return play(episodes, agents, args.seeds, args.dataset, perception=perception, **rules)

    if not args.check:
        log(f"fitting frames_per_move: RHP alone, oracle, {len(episodes)} episodes x {args.seeds} seeds -> 0.50")
        moves = fit_moves(lambda v: run(1, "oracle", frames_per_move=v).mean(), PAPER[("RHP", "oracle")][2], log)
        for task, target in (("food", PAPER[("RHP", "detector")][0]), ("stuff", PAPER[("RHP", "detector")][1])):
            log(f"fitting p_miss[{task}]: RHP alone, detector, {task} episodes -> {target:.2f}")
            subset = [e for e in episodes if _task(e, args.dataset) == task]

            def measure(value: float, task: str = task, subset: list[str] = subset) -> float:
                misses = {**p_miss, task: value}
                return play(subset, 1, args.seeds, args.dataset, perception="detector", frames_per_move=moves,
                            p_miss=misses).mean()

            p_miss[task] = fit_miss(measure, target, log, task)
    cells = {(team, perception): run(agents, perception, frames_per_move=moves, p_miss=p_miss)
             for perception in ("oracle", "detector") for team, agents in TEAMS.items()}
    print()
    print(f"frames_per_move = {moves}; p_miss = {p_miss}" + ("  (current defaults)" if args.check else "  (fitted)"))
    print(f"{len(episodes)} episodes x {args.seeds} seeds, {args.dataset or 'shipped train split'}")
    print(table(cells))
    print(f"\ntook {time.perf_counter() - started:.0f} s")
    return 0


def _task(episode: str, dataset: str | None) -> str:
    return make("tdw-mat", episode=episode, **({"dataset": dataset} if dataset else {})).episode.task


if __name__ == "__main__":
    raise SystemExit(main())
