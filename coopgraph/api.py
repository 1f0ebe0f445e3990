"""The Python front door: run an episode, fork a recorded one and load a spec in one call each, as the CLI does.

`coopgraph.run(env="cwah", episode="test/0", team=["mhp", "mhp"])` builds the world and the team, checks every
graph member's spec against the world, plays the episode, writes its trace and returns a typed result; it is
the same path `coopgraph run` takes, so a script and the command line record the same manifest and metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coopgraph.runtime.result import RunResult

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec

__all__ = ["RunResult", "fork", "load_spec", "run"]

LLMSetting = str | Callable[[], Any]


def run(
    *,
    env: str = "cwah",
    episode: str | None = None,
    team: Sequence[str] = ("mhp", "mhp"),
    llm: LLMSetting | Sequence[LLMSetting | None] = "local",
    max_steps: int | None = None,
    seed: int = 0,
    out: str | Path = "runs",
    env_options: dict[str, Any] | None = None,
    trace_path: str | Path | None = None,
    keep_checkpoints: bool = True,
) -> RunResult:
    """Play one episode of `env` with `team` (baselines such as `mhp`, shipped spec names or spec paths) and
    return its result; `episode` defaults to the world's own (`coopgraph.envs.default_episode`). `llm` is a
    setting (`local`, `local-coop-brief`, `openai:MODEL`, ...) for every graph member (`local-coop`: each
    member's distilled planner for its prompt in this world), or one per member (None for baselines). Raises
    `UnknownEnvironmentError` or `UnknownMemberError` with what exists when a name is unknown, before anything
    runs. `seed` (a whole number) resets the world and the agents, and each graph member samples with a model
    seed derived from it, as `coopgraph run --seed` does (ValueError for anything else). The trace goes to
    `trace_path` (a new .jsonl file) or to a new file in `out`; with `keep_checkpoints` graph members save every
    step beside it, as `coopgraph run` does, so `fork` and `coopgraph replay` can restore them."""
    from coopgraph.runtime.launch import run_configured

    name = None
    if trace_path is not None:
        target = Path(trace_path)
        if target.suffix != ".jsonl" or target.exists():
            raise ValueError(f"trace_path {target}: give a new .jsonl file (a run never overwrites a trace)")
        out, name = target.parent, target.name
    setting: Any = list(llm) if isinstance(llm, list | tuple) else llm
    return run_configured(env, dict(env_options or {}), episode, list(team), setting, max_steps, Path(out),
                          seed=seed, trace_name=name, keep_checkpoints=keep_checkpoints)


def fork(
    trace: str | Path,
    *,
    at: int,
    llm: LLMSetting | None = None,
    team: Sequence[str] | None = None,
    say: str | tuple[str, str] | None = None,
    out: str | Path | None = None,
    trace_path: str | Path | None = None,
    seed: int | None = None,
) -> RunResult:
    """Rebuild the run recorded in `trace` at step `at` (the world from its recorded actions, baselines by
    replaying their steps, graph members from their checkpoints), change what is asked, and play on to the end
    as a new run beside the original (or in `out`, or at `trace_path`). `llm` replaces graph members' LLM
    setting; `team` replaces members (one name per agent); `say` (`"alice:TEXT"` or `("alice", "TEXT")`)
    delivers TEXT from alice to the others at that step; graph members keep the run's model seeds unless `seed`
    gives new ones (those `run(seed=...)` would use). Raises `TraceError` (a ValueError) naming what exists
    when the trace cannot be forked as asked; the result's `forked_from` says where it branched."""
    from coopgraph.runtime.fork import fork_run

    return fork_run(trace, at, llm=llm, team=team, say=say, out=out, trace_path=trace_path, seed=seed)


def load_spec(ref: str | Path, *, env: str | None = None) -> LoadedSpec:
    """Load and check a graph spec (a shipped name such as `coela` or a path), and with `env` check it against
    that world's kit too; raises `SpecInvalid` listing every problem with file:line."""
    from coopgraph.graphs.loader import load_spec as load

    return load(ref, env=env)
