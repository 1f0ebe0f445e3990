"""Launching an episode on the record: the team and its models, the trace and its manifest, the result with usage.

`coopgraph run`, the API, `coopgraph play`, suite jobs and a fork all go through `launch`, so every path builds the
models the same way, records the same manifest and run summary, closes the same resources and returns the same
`RunResult`. `run_configured` is a fresh run (world, trace name, replicate seeds); a fork (`fork.py`) hands
`launch` its rebuilt world, its own tracer and the members that catch up with the recorded run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pettingzoo import ParallelEnv

from coopgraph import envs
from coopgraph.envs.protocol import TeamMember, World
from coopgraph.record.manifest import manifest
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import check_step_budget, check_wall_budget, run_episode
from coopgraph.runtime.replicates import deterministic, llm_members, seed_team
from coopgraph.runtime.result import RunResult
from coopgraph.runtime.teams import make_team, team_settings

#: An LLM setting (`local`, `openai:MODEL`...) or a factory returning an LM (tests pass fakes); None for a baseline.
Setting = str | Callable[[], Any] | None
#: Where the models a run builds from setting strings keep their replies (`make_lm`'s `cache`): True, the user's
#: response cache (`default_cache_path`); False, none (every call asks the model); a path, that SQLite file.
ResponseCache = bool | str | Path


def _usage(team: Sequence[TeamMember], agents: list[str]) -> dict[str, dict[str, float]]:
    """Each LLM member's usage by agent (`TeamMember.llm_usage`: calls, tokens, failed calls, fallbacks)."""
    usage = {}
    for agent, member in zip(agents, team, strict=True):
        used = member.llm_usage()
        if used is not None:
            usage[agent] = dict(used)
    return usage


def model_factories(settings: Sequence[Setting], cache: ResponseCache = True) -> list[Callable[[], Any] | None]:
    """One LM factory per member; members naming the same setting share one factory (so one connection). Models
    built from a setting string keep their replies in `cache`; a factory given as such builds its own."""
    from coopgraph.llm.factory import make_lm

    def factory(setting: Setting) -> Callable[[], Any] | None:
        if setting is None or callable(setting):
            return setting
        return lambda: make_lm(setting, cache=cache)

    by_setting: dict[str, Callable[[], Any] | None] = {}
    return [by_setting.setdefault(s, factory(s)) if isinstance(s, str) else factory(s) for s in settings]


def _close_members(team: Sequence[TeamMember]) -> None:
    for member in team:
        member.close()


def _own_events_only(listener: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    """A listener that hears what this run writes, not the events a fork copies from its original."""
    def hear(record: dict[str, Any]) -> None:
        if not record.get("forked_prefix"):
            listener(record)

    return hear


@dataclass
class Launch:
    """What one episode on the record is made of; `launch` builds, plays, records and closes it."""

    env_name: str
    world: Any  # a World the episode loop can step (a fork's ForkedWorld stands in for the recorded one)
    team_names: list[str]
    settings: list[Setting]  # one per member
    trace_path: Path
    seed: int
    max_steps: int | None
    seeds: Callable[[list[str]], Mapping[str, int]]  # the model seeds of the agents, by agent
    manifest: dict[str, Any] = field(default_factory=dict)  # env, episode, team...: besides specs, LLM and seeds
    keep_checkpoints: bool = True  # graph members save every step beside the trace (replay and fork read them)
    seat_human: Callable[[], TeamMember] | None = None
    listeners: Sequence[Callable[[dict[str, Any]], None]] = ()
    open_trace: Callable[[Path], Tracer] = Tracer  # a fork writes its trace through a ForkTracer
    catch_up: Callable[[list[TeamMember]], list[TeamMember]] | None = None  # a fork's members catching up with the run
    discard_on: tuple[type[BaseException], ...] = ()  # failures after which the run leaves no files behind
    forked_from: dict[str, Any] | None = None
    response_cache: ResponseCache = True  # where members built from setting strings keep their replies
    wall_budget_s: float | None = None  # the episode ends at the end of the step that passes this (None: no budget)

    @property
    def checkpoints(self) -> Path:
        return self.trace_path.with_suffix(".checkpoints.sqlite")


def launch(setup: Launch) -> RunResult:
    """Build the team (before any file is written: a member that cannot be built leaves nothing behind), write the
    manifest, play the episode, record the run summary, close what was opened and return the result."""
    from coopgraph.record.checkpoints import sqlite_saver

    max_steps = check_step_budget(setup.max_steps)
    wall_budget_s = check_wall_budget(setup.wall_budget_s)
    saver = sqlite_saver(setup.checkpoints) if setup.keep_checkpoints else None
    member_settings = [s if isinstance(s, str) else None for s in setup.settings]
    try:
        factories = model_factories(setup.settings, setup.response_cache)
        team = make_team(setup.team_names, member_lm_factories=factories, env=setup.env_name, checkpointer=saver,
                         member_settings=member_settings, seat_human=setup.seat_human)
    except BaseException:
        setup.world.close()
        if saver is not None:
            saver.conn.close()  # type: ignore[attr-defined]  # LangGraph's SqliteSaver keeps its connection
            setup.checkpoints.unlink(missing_ok=True)
        raise
    agents = list(setup.world.possible_agents)
    seeds = seed_team(agents, team, setup.seeds(agents))
    samples_none = deterministic(team)
    graph_members = llm_members(agents, team)
    players = setup.catch_up(team) if setup.catch_up is not None else team
    tracer = setup.open_trace(setup.trace_path)
    tracer.listeners.extend(_own_events_only(listener) for listener in setup.listeners)
    failed = False
    try:
        tracer.event("manifest", **manifest(
            specs={a: m.loaded.path for a, m in graph_members.items()},
            llm={a: {**m.lm.settings_public, **({"seed": seeds[a]} if a in seeds else {})}
                 for a, m in graph_members.items()},
            seed=setup.seed, **setup.manifest, model_seeds=seeds, deterministic=samples_none))
        played = run_episode(setup.world, players, max_steps=max_steps, tracer=tracer, seed=setup.seed,
                             wall_budget_s=wall_budget_s)
        usage = _usage(team, agents)
        invalid = sum(1 for e in tracer.events if e["type"] == "invalid_answer" and not e.get("forked_prefix"))
        tracer.event("run_summary", llm_usage=usage, invalid_answers=invalid)
    except setup.discard_on:
        failed = True
        raise
    finally:
        tracer.close()
        setup.world.close()
        _close_members(team)
        if saver is not None:
            saver.conn.close()  # type: ignore[attr-defined]  # LangGraph's SqliteSaver keeps its connection
        if failed:
            setup.trace_path.unlink(missing_ok=True)
            setup.checkpoints.unlink(missing_ok=True)
    replay = None
    if saver is not None and graph_members and setup.forked_from is None:
        replay = f"coopgraph replay {setup.trace_path} --agent {next(iter(graph_members))} --decision 1"
    return played.model_copy(update={"llm_usage": usage, "invalid_answers": invalid, "model_seeds": seeds,
                                     "deterministic": samples_none, "replay": replay,
                                     "forked_from": setup.forked_from})


def _check_given_world(world: ParallelEnv, env_name: str, members: int) -> None:
    """A world handed to `run_configured` must be the one its arguments name: that world, one agent per member."""
    agents = len(world.possible_agents)
    if not isinstance(world, World) or world.name != env_name or agents != members:
        raise ValueError(f"run_configured(world=...) was given {type(world).__name__} with {agents} agents for a "
                         f"run of {env_name!r} with {members} members; "
                         "build the world from the run's own arguments (or pass none)")


def run_configured(
    env_name: str,
    env_options: dict[str, Any],
    episode: str | None,
    team_names: list[str],
    llm: Setting | list[Setting],
    max_steps: int | None,
    out: Path,
    *,
    seed: int = 0,
    repeat: int = 0,
    model_seeds: Mapping[str, int] | None = None,
    listeners: list[Callable[[dict[str, Any]], None]] | None = None,
    trace_name: str | None = None,
    keep_checkpoints: bool = False,
    seat_human: Callable[[], TeamMember] | None = None,
    world: ParallelEnv | None = None,
    response_cache: ResponseCache = True,
    wall_budget_s: float | None = None,
) -> RunResult:
    """Run one episode (`episode` None: the world's default one); `llm` is a setting string or a factory
    returning an LM (tests pass fakes), or one of those per member (None for baselines) when members use
    different models. One setting for the team is read per member (`team_settings`: the family name
    `local-coop` gives each graph member the distilled planner that learned its prompt in this world). With
    `keep_checkpoints`, graph members save every step to a SQLite file beside the trace (`coopgraph
    replay`/`fork` read it).

    The run is the replicate (`seed`, `repeat`): `seed` resets the world and the agents, and each graph member
    samples with its own model seed derived from the replicate (`coopgraph.llm.seeds`), unless `model_seeds`
    gives them by agent. The manifest and the result record the seeds and whether any member samples.
    `seat_human` makes the member for a `human` in the team (`coopgraph play`).

    `world`: the world already built from these same arguments (`env_name`, `episode`, one agent per member,
    `env_options`), when the caller had to build it anyway (`coopgraph run` checking `--env-opt`, `coopgraph play`
    finding the human's agent), so that one build serves the run; the run takes it over and closes it, refused or
    not.

    `response_cache`: where the models built from setting strings keep their replies (`ResponseCache`: the user's
    cache by default; a benchmark that times the model passes False or a file of its own).

    `wall_budget_s`: seconds the episode may take; past them it ends at the end of the step under way and the
    result's `stopped_at_budget` says where (None, the default: it runs to success or the horizon)."""
    from coopgraph.llm.seeds import model_seeds as derived_seeds

    try:
        for name, value in (("seed", seed), ("repeat", repeat)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number of 0 or more, got {value!r}")
        check_step_budget(max_steps)
        check_wall_budget(wall_budget_s)
        envs.check_team_size(env_name, len(team_names))  # before anything is built: the world's limit, in one line
        if episode is None:
            episode = envs.default_episode(env_name)
        if world is None:
            world = envs.make(env_name, episode=episode, num_agents=len(team_names), **env_options)
        else:
            _check_given_world(world, env_name, len(team_names))
        settings: list[Setting] = list(team_settings(team_names, llm, env_name)) if isinstance(llm, str) else \
            list(llm) if isinstance(llm, list) else [llm] * len(team_names)
    except BaseException:
        if world is not None:
            world.close()
        raise
    stamp = time.strftime("%Y%m%d-%H%M%S")
    label = "+".join(Path(t).stem for t in team_names)
    trace_path = out / (trace_name or f"{env_name}-{episode.replace('/', '_')}-{label}-{stamp}.jsonl")

    def seeds(agents: list[str]) -> Mapping[str, int]:
        return model_seeds if model_seeds is not None else derived_seeds(seed, repeat, agents)

    return launch(Launch(
        env_name=env_name, world=world, team_names=team_names, settings=settings, trace_path=trace_path, seed=seed,
        max_steps=max_steps, seeds=seeds, keep_checkpoints=keep_checkpoints, seat_human=seat_human,
        listeners=listeners or (), response_cache=response_cache, wall_budget_s=wall_budget_s,
        manifest={"env": env_name, "env_options": env_options, "episode": episode, "team": team_names,
                  "repeat": repeat}))
