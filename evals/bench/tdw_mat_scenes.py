"""TDW-MAT per scene and split: RHP alone and RHP + RHP transport rates with oracle and detector perception, beside
CoELA table 1 (whose numbers are the test split's totals: scenes 2a and 5a).

The calibration is fitted on the train split (scenes 1a, 4a); this table shows whether it carries over to each
scene of the test split, which is where a wrong house (rooms, doors, where objects lie) shows first. A cell is the
mean over a scene's episodes and the seeds (RHP picks objects and frontier cells at random).

Run: `python -m coopgraph.evals.bench.tdw_mat_scenes [--seeds 3] [--split train --split test] [--limit N]`.
Single process; both splits with 3 seeds take a few minutes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field

from coopgraph.envs import make
from coopgraph.envs.partners import make_partner
from coopgraph.envs.tdw_mat.episode import SPLITS, split_episodes
from coopgraph.runtime.episode_loop import run_episode

#: CoELA table 1 (test split, totals over food and stuff): (team, perception) -> food, stuff, total.
PAPER = {("RHP", "oracle"): (0.52, 0.49, 0.50), ("RHP+RHP", "oracle"): (0.76, 0.74, 0.75),
         ("RHP", "detector"): (0.49, 0.36, 0.43), ("RHP+RHP", "detector"): (0.67, 0.54, 0.61)}
TEAMS = {"RHP": 1, "RHP+RHP": 2}
PERCEPTIONS = ("oracle", "detector")
COLUMNS = [(team, perception) for perception in PERCEPTIONS for team in TEAMS]


@dataclass
class Rates:
    """Per-episode mean transport rates of one team and perception, with each episode's scene and task."""

    rates: dict[str, float] = field(default_factory=dict)
    scenes: dict[str, str] = field(default_factory=dict)
    tasks: dict[str, str] = field(default_factory=dict)

    def mean(self, scene: str | None = None, task: str | None = None) -> float:
        values = [rate for episode, rate in self.rates.items()
                  if (scene is None or self.scenes[episode] == scene) and (task is None or self.tasks[episode] == task)]
        return statistics.mean(values) if values else float("nan")


def episode_ids(split: str, limit: int | None = None) -> list[str]:
    """`split/N` for the split's episodes; with `limit`, the first `limit` of each scene and task."""
    chosen, taken = [], {}  # type: ignore[var-annotated]
    for index, episode in enumerate(split_episodes(split)):
        group = (episode.scene, episode.task)
        if limit is None or taken.get(group, 0) < limit:
            taken[group] = taken.get(group, 0) + 1
            chosen.append(f"{split}/{index}")
    return chosen


def play(episodes: list[str], agents: int, perception: str, seeds: int) -> Rates:
    """`agents` RHP agents on every episode with every seed."""
    found = Rates()
    for episode in episodes:
        env = make("tdw-mat", episode=episode, num_agents=agents, perception=perception)
        results = [run_episode(env, [make_partner("rhp") for _ in range(agents)], seed=seed)
                   for seed in range(seeds)]
        found.rates[episode] = statistics.mean(r.number("transport_rate") for r in results)
        found.scenes[episode], found.tasks[episode] = env.episode.scene, env.episode.task
    return found


def measure(splits: list[str], seeds: int, limit: int | None = None) -> dict[str, dict[tuple[str, str], Rates]]:
    """Split -> (team, perception) -> rates."""
    return {split: {(team, perception): play(episode_ids(split, limit), TEAMS[team], perception, seeds)
                    for team, perception in COLUMNS} for split in splits}


def table(measured: dict[str, dict[tuple[str, str], Rates]]) -> str:
    """A markdown table: per split its scenes and its total (food / stuff / total), then CoELA table 1's row."""
    head = " | ".join(f"{team}, {perception}" for team, perception in COLUMNS)
    rows = [f"| split | scene | episodes | {head} |", "|---|---|---|" + "---|" * len(COLUMNS)]
    for split, cells in measured.items():
        first = cells[COLUMNS[0]]
        for scene in sorted(set(first.scenes.values())):
            count = sum(1 for s in first.scenes.values() if s == scene)
            values = " | ".join(f"{cells[column].mean(scene):.2f}" for column in COLUMNS)
            rows.append(f"| {split} | {scene} | {count} | {values} |")
        totals = " | ".join(f"{cells[c].mean(task='food'):.2f} / {cells[c].mean(task='stuff'):.2f} / "
                            f"**{cells[c].mean():.2f}**" for c in COLUMNS)
        rows.append(f"| {split} | all (food / stuff / total) | {len(first.rates)} | {totals} |")
    paper = " | ".join(" / ".join(f"{v:.2f}" for v in PAPER[c]) for c in COLUMNS)
    rows.append(f"| test | CoELA table 1 (food / stuff / total) | 24 | {paper} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", action="append", choices=SPLITS, help="a shipped split (default: both)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per episode (RHP chooses at random)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N episodes of each scene and task")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    splits = args.split or list(SPLITS)
    measured = measure(splits, args.seeds, args.limit)
    print(f"TDW-MAT, RHP transport rate per scene; {args.seeds} seeds per episode")
    print(table(measured))
    print(f"\ntook {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
