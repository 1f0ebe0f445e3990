"""Benchmark what checkpointing costs an episode: time inside the saver (serialising, storing, loading every
step's channels) as a share of the episode's wall time, with the in-memory saver and the SQLite one.

The model is a zero-latency scripted one (always the first option), so the share is an upper bound: with a real
model every step also waits for it. Target: at most 5% with a real model. Run:
`.venv/bin/python -m coopgraph.evals.bench.checkpoint_overhead [--episodes 2]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from coopgraph import envs
from coopgraph.record.checkpoints import memory_saver, sqlite_saver
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.teams import make_team
from coopgraph.testing import scripted_lm

SPECS = ("coela", "capo", "reveca", "coela-brief")


class TimedSaver:
    """Wraps a saver's methods the graph calls each step and adds up the time spent in them."""

    def __init__(self, saver: Any) -> None:
        self.saver, self.seconds, self.calls = saver, 0.0, 0
        for name in ("put", "put_writes", "get_tuple", "get_next_version"):
            setattr(self, name, self._timed(getattr(saver, name)))

    def _timed(self, method: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.calls += 1

        return call

    def __getattr__(self, name: str) -> Any:
        return getattr(self.saver, name)


def first_option(messages: list[Any], kwargs: dict[str, Any]) -> str:
    text = str(messages[-1].content)
    return "Reasoning: first\nAnswer: A" if "\nA. " in text else "I go on with my part."


def measure(spec: str, saver: Any, episodes: int) -> tuple[float, float, int]:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    timed = TimedSaver(saver)
    timed.__class__ = type("Timed", (TimedSaver, BaseCheckpointSaver), {})  # LangGraph checks the base class
    wall = 0.0
    for index in range(episodes):
        team = make_team([spec, spec], lm_factory=lambda: scripted_lm(first_option), env="cwah", checkpointer=timed)
        env = envs.make("cwah", episode=f"test/{index}", num_agents=2)
        start = time.perf_counter()
        run_episode(env, team, max_steps=60)
        wall += time.perf_counter() - start
    return wall, timed.seconds, timed.calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=2)
    args = parser.parse_args()
    print(f"{'spec':<12} {'saver':<7} {'wall s':>7} {'in saver s':>10} {'share':>6} {'calls':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for spec in SPECS:
            for label, make in (("memory", memory_saver), ("sqlite", lambda: sqlite_saver(Path(folder) / "c.db"))):
                wall, inside, calls = measure(spec, make(), args.episodes)
                print(f"{spec:<12} {label:<7} {wall:>7.2f} {inside:>10.2f} {inside / wall:>6.1%} {calls:>6}")


if __name__ == "__main__":
    main()
