"""How fast C-WAH steps: environment steps per second with two MHP agents choosing the actions,
and the share of that time spent inside `env.step` itself.

Run: `python -m coopgraph.evals.bench.env_speed [--episodes 10] [--noise 0]`.
"""

from __future__ import annotations

import argparse
import time

from coopgraph.envs import make
from coopgraph.envs.baselines import make_baseline


def measure(episodes: int, noise: int) -> tuple[int, float, float]:
    """Total steps, total seconds, seconds inside env.step, over the first `episodes` test/train episodes."""
    steps, total, in_env = 0, 0.0, 0.0
    for index in range(episodes):
        episode = f"test/{index}" if index < 10 else f"train/{index - 10}"
        env = make("cwah-noisy" if noise else "cwah", episode=episode, noise=noise)
        team = [make_baseline("mhp"), make_baseline("mhp")]
        started = time.perf_counter()
        observations, _ = env.reset(seed=index)
        for agent, member in zip(env.possible_agents, team, strict=True):
            member.reset(agent, env.agent_info(agent), index)
        while env.agents:
            actions = {
                agent: member.act(observations[agent]) for agent, member in zip(env.agents, team, strict=True)
            }
            before = time.perf_counter()
            observations, *_ = env.step(actions)
            in_env += time.perf_counter() - before
            steps += 1
        total += time.perf_counter() - started
    return steps, total, in_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--noise", type=int, default=0)
    args = parser.parse_args()
    measure(1, args.noise)  # warm caches and imports
    steps, total, in_env = measure(args.episodes, args.noise)
    print(f"C-WAH, 2 MHP agents, {args.episodes} episodes, noise={args.noise}: {steps} steps")
    print(f"  with agents:  {steps / total:8.0f} env steps/s ({1000 * total / steps:.2f} ms per step)")
    print(f"  env.step only:{steps / in_env:8.0f} steps/s ({1000 * in_env / steps:.2f} ms per step)")


if __name__ == "__main__":
    main()
