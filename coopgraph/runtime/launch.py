"""One configured episode end to end: environment, team, LLM, trace file, result with LLM usage.

Shared by `coopgraph run`, the demo and evaluation suites, so every path records the same manifest
and the same metrics.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from coopgraph import envs
from coopgraph.record.manifest import manifest
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.replicates import deterministic, replicate_seeds, seed_team
from coopgraph.runtime.teams import make_team, team_settings


def _usage(team: list[Any], agents: list[str]) -> dict[str, dict[str, float]]:
    """Each graph member's LLM usage: calls answered, tokens, failed calls (`llm_errors`, after retries) and
    questions that fell back for want of a model (`llm_fallbacks`)."""
    usage = {}
    for agent, member in zip(agents, team, strict=True):
        resources = getattr(member, "resources", None)
        if resources is not None and hasattr(resources.lm, "usage"):
            u = resources.lm.usage
            usage[agent] = {"llm_calls": u.calls, "prompt_tokens": u.prompt_tokens,
                            "completion_tokens": u.completion_tokens, "cache_hits": u.cache_hits,
                            "llm_seconds": round(u.latency_s, 2), "llm_errors": u.errors,
                            "llm_fallbacks": u.fallbacks}
    return usage


def run_configured(
    env_name: str,
    env_options: dict[str, Any],
    episode: str | None,
    team_names: list[str],
    llm: str | Callable[[], Any] | list[str | Callable[[], Any] | None],
    max_steps: int | None,
    out: Path,
    *,
    seed: int = 0,
    repeat: int = 0,
    model_seeds: Mapping[str, int] | None = None,
    listeners: list[Callable[[dict[str, Any]], None]] | None = None,
    trace_name: str | None = None,
    keep_checkpoints: bool = False,
    seat_human: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Run one episode (`episode` None: the world's default one); `llm` is a setting string or a factory
    returning an LM (tests pass fakes), or one of those per member (None for baselines) when members use
    different models. One setting for the team is read per member (`team_settings`: the family name
    `local-coop` gives each graph member the distilled planner that learned its prompt in this world). With
    `keep_checkpoints`, graph members save every step to a SQLite file beside the trace (`coopgraph
    replay`/`fork` read it).

    The run is the replicate (`seed`, `repeat`): `seed` resets the world and the agents, and each graph member
    samples with its own model seed derived from the replicate (`coopgraph.llm.seeds`), unless `model_seeds`
    gives them by agent. The manifest and the result record the seeds and whether any member samples.
    `seat_human` makes the member for a `human` in the team (`coopgraph play`)."""
    from coopgraph.llm.factory import make_lm
    from coopgraph.record.checkpoints import sqlite_saver

    for name, value in (("seed", seed), ("repeat", repeat)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a whole number of 0 or more, got {value!r}")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ValueError(f"max_steps must be a whole number of 1 or more, got {max_steps!r} (None runs to the "
                         "environment's horizon)")
    envs.check_team_size(env_name, len(team_names))  # before anything is built: the world's limit, in one line
    if episode is None:
        episode = envs.default_episode(env_name)
    env = envs.make(env_name, episode=episode, num_agents=len(team_names), **env_options)
    if isinstance(llm, str):
        llm = list(team_settings(team_names, llm, env_name))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    label = "+".join(Path(t).stem for t in team_names)
    trace_path = out / (trace_name or f"{env_name}-{episode.replace('/', '_')}-{label}-{stamp}.jsonl")
    def factory(setting: str | Callable[[], Any] | None) -> Callable[[], Any] | None:
        if setting is None or callable(setting):
            return setting
        return lambda: make_lm(setting)

    checkpoints = trace_path.with_suffix(".checkpoints.sqlite")
    saver = sqlite_saver(checkpoints) if keep_checkpoints else None
    try:  # the team first: a member that cannot be built leaves no empty trace or checkpoint file behind
        if isinstance(llm, list):
            by_setting: dict[Any, Any] = {}
            factories = [by_setting.setdefault(s, factory(s)) if isinstance(s, str) else factory(s) for s in llm]
            team = make_team(team_names, member_lm_factories=factories, env=env_name, checkpointer=saver,
                             member_settings=[s if isinstance(s, str) else None for s in llm], seat_human=seat_human)
        else:
            team = make_team(team_names, lm_factory=factory(llm), env=env_name, checkpointer=saver,
                             member_settings=[llm if isinstance(llm, str) else None] * len(team_names),
                             seat_human=seat_human)
    except BaseException:
        if saver is not None:
            saver.conn.close()  # type: ignore[attr-defined]  # LangGraph's SqliteSaver keeps its connection
            checkpoints.unlink(missing_ok=True)
        raise
    tracer = Tracer(trace_path)
    tracer.listeners.extend(listeners or [])
    agents = list(env.possible_agents)
    graph_members = {a: m for a, m in zip(agents, team, strict=True) if hasattr(m, "graph")}
    seeds = seed_team(agents, team, model_seeds) if model_seeds is not None else \
        replicate_seeds(agents, team, seed, repeat)
    samples_none = deterministic(team)
    specs = {a: m.loaded.path for a, m in graph_members.items()}
    llm_info = {a: {**m.lm.settings_public, **({"seed": seeds[a]} if a in seeds else {})}
                for a, m in graph_members.items()}
    tracer.event("manifest", **manifest(specs=specs, llm=llm_info, seed=seed, env=env_name, env_options=env_options,
                                        episode=episode, team=team_names, repeat=repeat, model_seeds=seeds,
                                        deterministic=samples_none))
    try:
        result = run_episode(env, team, max_steps=max_steps, tracer=tracer, seed=seed)
        usage = _usage(team, agents)
        invalid = sum(1 for e in tracer.events if e["type"] == "invalid_answer")
        tracer.event("run_summary", llm_usage=usage, invalid_answers=invalid)
    finally:
        tracer.close()
        for member in team:
            memory = getattr(member, "memory", None)
            if memory is not None and getattr(memory, "vector", None) is not None:
                memory.vector.close()
        if saver is not None:
            saver.conn.close()  # type: ignore[attr-defined]  # LangGraph's SqliteSaver keeps its connection
    replay = None
    if saver is not None and graph_members:
        replay = f"coopgraph replay {trace_path} --agent {next(iter(graph_members))} --decision 1"
    return {**result.model_dump(mode="json", exclude={"messages"}), "llm_usage": usage, "invalid_answers": invalid,
            "messages": [m.model_dump(mode="json") for m in result.messages], "replay": replay,
            "model_seeds": seeds, "deterministic": samples_none}
