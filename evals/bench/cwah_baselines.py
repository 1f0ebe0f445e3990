"""C-WAH baseline figures beside the papers': mean steps and success of MHP alone, MHP+MHP, MHP-silent
pairs, the oracle plan and the oracle lower bound, on an episode set, clean and noisy.

Run: `python -m coopgraph.evals.bench.cwah_baselines [--set test] [--noise 20]`.
"""

from __future__ import annotations

import argparse
import statistics
import time

from coopgraph.envs import make
from coopgraph.envs.cwah import episode_sets, resolve_episode
from coopgraph.envs.cwah.experts.oracle import oracle_bound
from coopgraph.envs.partners import make_partner
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.result import RunResult

PAPER_STEPS = {"MHP": "111 (CoELA t.2)", "MHP + MHP": "75 (CoELA t.2)"}
TEAMS: dict[str, list[str]] = {
    "MHP": ["mhp"],
    "MHP + MHP": ["mhp", "mhp"],
    "MHP-silent + MHP-silent": ["mhp-silent", "mhp-silent"],
    "oracle plan (2 agents)": ["oracle", "oracle"],
}


def run_team(members: list[str], episode: str, noise: int) -> RunResult:
    env = make("cwah-noisy" if noise else "cwah", episode=episode, num_agents=len(members), noise=noise)
    return run_episode(env, [make_partner(name) for name in members])


def table(episode_set: str, noise: int) -> list[str]:
    """One formatted row per team plus the oracle bound."""
    ids = [f"{episode_set}/{i}" for i in range(episode_sets()[episode_set])]
    rows = [f"{'team':<26}{'steps':>8}{'success':>9}{'TD/agent m':>12}{'CS':>6}{'CC':>7}   paper"]
    for label, members in TEAMS.items():
        results = [run_team(members, episode, noise) for episode in ids]
        metric = lambda key, rs=results: statistics.mean(r.metrics[key] for r in rs)  # noqa: E731
        rows.append(
            f"{label:<26}{metric('steps'):>8.1f}{metric('success'):>9.0%}{metric('travel_distance_per_agent'):>12.1f}"
            f"{metric('communication_steps'):>6.1f}{metric('characters_per_message'):>7.0f}   "
            f"{PAPER_STEPS.get(label, '')}"
        )
    bounds = [oracle_bound(resolve_episode(episode, noise), 2) for episode in ids]
    rows.append(f"{'oracle bound (2 agents)':<26}{statistics.mean(bounds):>8.1f}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="test", choices=sorted(episode_sets()))
    parser.add_argument("--noise", type=int, action="append", help="noise levels (default: 0 and 20)")
    args = parser.parse_args()
    for noise in args.noise or [0, 20]:
        started = time.perf_counter()
        title = f"C-WAH {args.set} set" + (
            f", Noisy-C-WAH noise={noise}" if noise else ", symbolic observation"
        )
        print(title)
        print("\n".join(table(args.set, noise)))
        print(f"({time.perf_counter() - started:.1f} s)\n")


if __name__ == "__main__":
    main()
