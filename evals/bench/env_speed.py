"""How fast the worlds step: C-WAH steps per second with two MHP agents choosing the actions, Overcooked ticks per
second with two greedy cooks, TDW-MAT frames per second with two RHP agents, and for each the share of that time
spent inside `env.step` itself.

Run: `python -m coopgraph.evals.bench.env_speed [--world cwah|overcooked|tdw-mat|all] [--episodes 10] [--noise 0]`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from coopgraph.envs import make
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import WAIT

#: The paper's seven Overcooked layouts (llmco.md §5), played for 400 ticks each.
OVERCOOKED_LAYOUTS = ("cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination",
                      "counter_circuit_o_1order", "soup_passing_door", "no_counter_door")


def _play(env: Any, team: list[Any], seed: int) -> tuple[int, float, float]:
    """Steps, seconds and seconds inside env.step for one episode."""
    steps, in_env = 0, 0.0
    started = time.perf_counter()
    observations, _ = env.reset(seed=seed)
    for agent, member in zip(env.possible_agents, team, strict=True):
        member.reset(agent, env.agent_info(agent), seed)
    while env.agents:
        actions = {agent: member.act(observations[agent]) for agent, member in zip(env.agents, team, strict=True)}
        before = time.perf_counter()
        observations, *_ = env.step(actions)
        in_env += time.perf_counter() - before
        steps += 1
    return steps, time.perf_counter() - started, in_env


def _total(episodes: list[Callable[[], tuple[Any, list[Any]]]]) -> tuple[int, float, float]:
    steps, total, in_env = 0, 0.0, 0.0
    for index, build in enumerate(episodes):
        env, team = build()
        s, t, e = _play(env, team, index)
        steps, total, in_env = steps + s, total + t, in_env + e
    return steps, total, in_env


def measure(episodes: int, noise: int) -> tuple[int, float, float]:
    """C-WAH: total steps, total seconds, seconds inside env.step, over the first `episodes` test/train episodes."""
    def build(index: int) -> Callable[[], tuple[Any, list[Any]]]:
        episode = f"test/{index}" if index < 10 else f"train/{index - 10}"
        return lambda: (make("cwah-noisy" if noise else "cwah", episode=episode, noise=noise),
                        [make_partner("mhp"), make_partner("mhp")])

    return _total([build(i) for i in range(episodes)])


def measure_overcooked(layouts: tuple[str, ...] = OVERCOOKED_LAYOUTS, horizon: int = 400) -> tuple[int, float, float]:
    """Overcooked: total ticks, seconds, seconds inside env.step, two greedy cooks on each layout."""
    return _total([lambda name=name: (make("overcooked", layout=name, horizon=horizon),  # type: ignore[misc]
                                      [make_partner("greedy"), make_partner("greedy")]) for name in layouts])


def measure_tdw_mat(episodes: int = 24) -> tuple[int, float, float]:
    """TDW-MAT: total frames, seconds, seconds inside env.step, two RHP agents on the first `episodes` train
    episodes. Time is frames, and a busy agent is sent WAIT without being asked, as the runner does."""
    frames, total, in_env = 0, 0.0, 0.0
    for index in range(episodes):
        env = make("tdw-mat", episode=f"train/{index}")
        team = [make_partner("rhp"), make_partner("rhp")]
        started = time.perf_counter()
        observations, _ = env.reset(seed=index)
        for offset, (agent, member) in enumerate(zip(env.possible_agents, team, strict=True)):
            member.reset(agent, env.agent_info(agent), index + offset)
        members = dict(zip(env.possible_agents, team, strict=True))
        while env.agents:
            actions = {a: members[a].act(observations[a]) if observations[a].ready else WAIT for a in env.agents}
            before = time.perf_counter()
            observations, *_ = env.step(actions)
            in_env += time.perf_counter() - before
        frames += env.world.time
        total += time.perf_counter() - started
    return frames, total, in_env


def _report(title: str, unit: str, steps: int, total: float, in_env: float) -> None:
    print(f"{title}: {steps} {unit}")
    print(f"  with agents:  {steps / total:8.0f} {unit}/s ({1000 * total / steps:.2f} ms per {unit[:-1]})")
    print(f"  env.step only:{steps / in_env:8.0f} {unit}/s ({1000 * in_env / steps:.2f} ms per {unit[:-1]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=("cwah", "overcooked", "tdw-mat", "all"), default="all")
    parser.add_argument("--episodes", type=int, default=10, help="C-WAH episodes")
    parser.add_argument("--noise", type=int, default=0, help="C-WAH dummy objects")
    args = parser.parse_args()
    if args.world in ("cwah", "all"):
        measure(1, args.noise)  # warm caches and imports
        _report(f"C-WAH, 2 MHP agents, {args.episodes} episodes, noise={args.noise}", "steps",
                *measure(args.episodes, args.noise))
    if args.world in ("overcooked", "all"):
        measure_overcooked(OVERCOOKED_LAYOUTS[:1], horizon=20)  # warm imports
        _report(f"Overcooked, 2 greedy cooks, {len(OVERCOOKED_LAYOUTS)} layouts x 400 ticks", "ticks",
                *measure_overcooked())
    if args.world in ("tdw-mat", "all"):
        measure_tdw_mat(1)  # warm imports and the floorplans' caches
        _report("TDW-MAT, 2 RHP agents, the 24 train episodes to 3000 frames or done", "frames", *measure_tdw_mat())


if __name__ == "__main__":
    main()
