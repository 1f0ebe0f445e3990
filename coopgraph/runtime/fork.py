"""Fork an episode: rebuild a recorded run at one step, change one thing, and play it on to the end as a new run.

The worlds are deterministic given the seed and the actions, so the world is brought to the fork step by
replaying the recorded actions (checking that each step does what it did then). Baseline members (MHP, the
oracle) are deterministic too: they are fed the observations they had and must choose the recorded actions
again. Graph members are restored from their checkpoint of the step before the fork (`fork_catch_up.py` does
both). This module checks what is asked against the run and hands the rebuilt world and the catching-up team to the
launch every run goes through (`launch.py`), so the episode loop plays on unaware. The new trace says where it
branched (`forked_from`) and starts with the original's events up to the fork step, so the viewer, `trace diff`,
`replay` and another `fork` read it as one whole episode.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coopgraph.envs.protocol import TeamMember
from coopgraph.llm.seeds import model_seeds
from coopgraph.record.recorded_run import (
    NEEDS_CHECKPOINTS,
    RecordedRun,
    StepCheckpoint,
    checkpoint_before,
    checkpoint_file,
    read_run,
)
from coopgraph.runtime.fork_catch_up import Catch, ForkedMember, ForkedWorld, ForkError, ForkTracer, Say
from coopgraph.runtime.launch import Launch, launch
from coopgraph.runtime.result import RunResult
from coopgraph.runtime.teams import member_kind

__all__ = ["ForkError", "Say", "fork_run", "parse_say", "plan_fork"]

SAY_FORMAT = 'AGENT:TEXT, e.g. alice:"I: Next I will get <apple> (21)."'


def parse_say(value: str | tuple[str, str]) -> Say:
    """`alice:TEXT` (or the pair) as a Say; raises ForkError naming the format."""
    if isinstance(value, tuple):
        agent, sep, text = value[0], ":", value[1]
    else:
        agent, sep, text = str(value).partition(":")
    agent, text = agent.strip(), text.strip()
    if not sep or not agent or not text:
        raise ForkError(f"--say {value!r}: --say takes {SAY_FORMAT}")
    return Say(agent, text)


@dataclass
class ForkPlan:
    """Everything checked before anything runs: the new team, how each member catches up, its LLM."""

    names: list[str]
    catches: list[Catch]
    checkpoints: list[StepCheckpoint | None]
    settings: list[str | Callable[[], Any] | None]
    changes: dict[str, Any] = field(default_factory=dict)


def fork_steps(run: RecordedRun) -> list[int]:
    """The steps a fork may start at: the start and every recorded step before the last."""
    recorded = [int(e["step"]) for e in run.env_steps()]
    return [0, *[s for s in recorded[:-1] if s > 0]]


def _check_step(run: RecordedRun, at: int) -> None:
    steps = fork_steps(run)
    last = int(run.env_steps()[-1]["step"]) if run.env_steps() else 0
    if at not in steps:
        if last == 0:
            raise ForkError(f"{run.path} records no step of the episode; there is nothing to fork")
        raise ForkError(f"--at {at} is out of range: {run.path} ran from step 0 to {last}; fork at a step from 0 to "
                        f"{steps[-1]}")
    earlier = run.start.get("forked_from")
    if isinstance(earlier, dict) and at < int(earlier.get("step", 0)):
        raise ForkError(f"{run.path} is a fork of {earlier.get('trace')} at step {earlier.get('step')}; to fork at "
                        f"step {at}, which is before that, fork {earlier.get('trace')}")


def plan_fork(run: RecordedRun, at: int, *, llm: str | Callable[[], Any] | None = None,
              team: Sequence[str] | None = None, say: Say | None = None, seed: int | None = None) -> ForkPlan:
    """Check the asked fork against the run and decide how each member catches up; raises ForkError."""
    _check_step(run, at)
    if say is not None and say.agent not in run.agents:
        raise ForkError(f"--say {say.agent}:...: no agent {say.agent!r} in this run; agents: {run.members()}")
    names = list(team) if team is not None else run.team
    if len(names) != len(run.agents):
        raise ForkError(f"--team names {len(names)} member{'s' * (len(names) != 1)} but the run has "
                        f"{len(run.agents)} agents ({run.members()}); name one member per agent")
    kinds = [member_kind(name) for name in names]  # UnknownMemberError (a ValueError) names what exists
    if llm is not None and "graph" not in kinds:
        raise ForkError(f"--llm changes graph members' model, and this team has none ({', '.join(names)}); "
                        "name a graph member with --team, or leave --llm out")
    if seed is not None and "graph" not in kinds:
        raise ForkError(f"--seed changes graph members' model seeds, and this team has none ({', '.join(names)}); "
                        "name a graph member with --team, or leave --seed out")
    recorded = run.checkpoints()
    settings_given = [run.llm_setting(a) for a in run.agents]
    fallback = next((s for s in settings_given if s), "local")
    plan = ForkPlan(names, [], [], [])
    replaced = {a: {"from": old, "to": new} for a, old, new in zip(run.agents, run.team, names, strict=True)
                if old != new}
    for agent, name, kind in zip(run.agents, names, kinds, strict=True):
        kept = agent not in replaced
        checkpoint = None
        if not kept:
            catch: Catch = "join"
        elif kind == "human":
            example = ",".join("mhp" if a == agent else n for a, n in zip(run.agents, names, strict=True))
            raise ForkError(f"a person played {agent} in {run.path}; a fork cannot ask them again: name the member "
                            f"that continues in their place with --team (e.g. --team {example})")
        elif kind == "baseline":
            catch = "replay"
        else:
            catch = "restore"
            if at > 0:
                if agent not in recorded:
                    raise ForkError(f"{run.path} records no checkpoints of {agent} ({name}), so it cannot be "
                                    f"restored at step {at}; {NEEDS_CHECKPOINTS}")
                checkpoint = checkpoint_before(recorded[agent], at)
                if checkpoint is not None:
                    checkpoint_file(checkpoint)
        plan.catches.append(catch)
        plan.checkpoints.append(checkpoint)
        plan.settings.append(None if kind == "baseline" else llm or run.llm_setting(agent) or fallback)
    plan.changes = {"llm": None if llm is None else llm if isinstance(llm, str) else "given",
                    "team": replaced or None, "say": None if say is None else {"agent": say.agent, "text": say.text},
                    "seed": seed}
    return plan


def _trace_path(run: RecordedRun, at: int, out: Path | None) -> Path:
    folder = out or run.path.parent
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{run.path.stem}-fork{at}-{stamp}.jsonl"
    copy = 2
    while path.exists():
        path = folder / f"{run.path.stem}-fork{at}-{stamp}-{copy}.jsonl"
        copy += 1
    return path


def _prefix_events(run: RecordedRun, at: int, replaced: set[str]) -> list[dict[str, Any]]:
    """The original's events after `episode_start` up to the world reaching `at` (what the fork keeps), less the
    checkpoints of replaced members (a later fork must not restore the old member into the new one)."""
    if at == 0:
        return []
    kept, started = [], False
    for event in run.events:
        kind = event.get("type")
        if kind == "episode_start":
            started = True
            continue
        if not started or kind in ("episode_end", "run_summary") or (kind == "checkpoint" and event.get("agent")
                                                                      in replaced):
            continue
        kept.append(event)
        if kind == "env_step" and int(event["step"]) >= at:
            break
    kept += [e for e in run.events if e.get("type") == "message" and e.get("injected") and int(e["step"]) == at]
    return kept


def fork_seeds(run: RecordedRun, seed: int | None) -> dict[str, int]:
    """The model seeds the fork's agents sample with: the run's own (a member new to the run gets the one its
    replicate derives), or, with `seed`, those of the replicate (`seed`, repeat 0), as `coopgraph run --seed`."""
    if seed is not None:
        return model_seeds(seed, 0, run.agents)
    return {**model_seeds(run.seed, run.repeat, run.agents), **run.model_seeds}


def fork_run(trace: str | Path, at: int, *, llm: str | Callable[[], Any] | None = None,
             team: Sequence[str] | None = None, say: str | tuple[str, str] | None = None,
             out: str | Path | None = None, trace_path: str | Path | None = None,
             listeners: Sequence[Callable[[dict[str, Any]], None]] = (), seed: int | None = None) -> RunResult:
    """Fork `trace` at step `at` and play on; returns the run's result with `forked_from` set.
    `listeners` see the fork's own events as they are written (not those copied from the original). Graph members
    keep the run's model seeds unless `seed` is given (`fork_seeds`); the world keeps the run's seed either way."""
    run = read_run(trace)
    said = None if say is None else parse_say(say)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ForkError(f"seed must be a whole number of 0 or more, got {seed!r}")
    plan = plan_fork(run, at, llm=llm, team=team, say=said, seed=seed)
    path = _trace_path(run, at, None if out is None else Path(out)) if trace_path is None else Path(trace_path)
    if trace_path is not None and path.exists():
        raise ForkError(f"{path}: a trace of that name exists; give a new name (a fork never overwrites a trace)")
    forked_from = {"trace": str(run.path.resolve()), "env": run.start["env"], "episode": run.start["episode"],
                   "step": at, "changes": plan.changes}
    world = ForkedWorld(run.make_world(), run, at, said)
    recorded = run.checkpoints()

    def catch_up(members: list[TeamMember]) -> list[TeamMember]:
        return [ForkedMember(m, world, catch, checkpoint, recorded.get(agent)) for agent, m, catch, checkpoint
                in zip(run.agents, members, plan.catches, plan.checkpoints, strict=True)]

    def open_trace(path: Path) -> ForkTracer:
        return ForkTracer(path, forked_from, _prefix_events(run, at, set(plan.changes["team"] or ())), said)

    return launch(Launch(
        env_name=run.start["env"], world=world, team_names=plan.names, settings=plan.settings, trace_path=path,
        seed=run.seed, max_steps=run.start.get("max_steps"), seeds=lambda agents: fork_seeds(run, seed),
        manifest={"env": run.start["env"], "env_options": run.env_options, "episode": run.start["episode"],
                  "team": plan.names, "forked_from": forked_from, "repeat": run.repeat},
        listeners=listeners, open_trace=open_trace, catch_up=catch_up,
        discard_on=(ForkError, KeyError),  # the members could not catch up with the run: nothing is left behind
        forked_from=forked_from))
