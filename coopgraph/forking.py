"""Fork an episode: rebuild a recorded run at one step, change one thing, and play it on to the end as a new run.

The worlds are deterministic given the seed and the actions, so the world is brought to the fork step by
replaying the recorded actions (checking that each step does what it did then). Baseline members (MHP, the
oracle) are deterministic too: they are fed the observations they had and must choose the recorded actions
again. Graph members are restored from their checkpoint of the step before the fork. Then a model, a member
or one message may be changed, and the ordinary episode runner plays on. The new trace says where it branched
(`forked_from`) and starts with the original's events up to the fork step, so the viewer, `trace diff`,
`replay` and another `fork` read it as one whole episode. (The module is `forking`, not `fork`: a submodule
named `fork` would shadow the `coopgraph.fork` function once imported.)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from coopgraph.envs.protocol import WAIT, Message, Observation
from coopgraph.recorded import (
    NEEDS_CHECKPOINTS,
    RecordedRun,
    StepCheckpoint,
    TraceError,
    checkpoint_before,
    checkpoint_file,
    read_run,
    restore_member,
)
from coopgraph.tracing import Tracer

ForkError = TraceError  # one class for everything a recorded run cannot do as asked
CHECKED_FIELDS = ("action", "ok", "room", "holding")  # what must come out the same when the world replays a step
SAY_FORMAT = 'AGENT:TEXT, e.g. alice:"I: Next I will get <apple> (21)."'


@dataclass(frozen=True)
class Say:
    """A message injected at the fork step: partners receive it from `agent` as any message (data, not orders)."""

    agent: str
    text: str


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
class Turn:
    """One step before the fork: what each agent observed and what the run had it do."""

    observations: dict[str, Observation]
    actions: dict[str, str | None]


class ForkedWorld:
    """The run's world; its `reset` replays the recorded actions up to the fork step and hands out that step's
    observations (with the injected message). Everything else is the wrapped world's."""

    def __init__(self, env: Any, run: RecordedRun, at: int, say: Say | None) -> None:
        self.env = env
        self.recorded = [e for e in run.env_steps() if int(e["step"]) <= at]
        self.at = at
        self.injected: dict[int, list[Message]] = {}  # messages an earlier fork injected (up to `at`), this one's
        for event in run.events:
            if event.get("type") == "message" and event.get("injected") and int(event["step"]) <= at:
                self._inject(Say(event["agent"], event["text"]), int(event["step"]))
        if say is not None:
            self._inject(say, at)
        self.turns: list[Turn] = []
        self._infos: dict[str, dict[str, Any]] = {}
        self._layout: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def agent_info(self, agent: str) -> dict[str, Any]:
        """What the agent knew at the start of the episode (not at the fork step): members reset as then."""
        return self._infos[agent]

    def layout(self) -> Any:
        """The house as it was at the start, which the trace viewer moves things from."""
        return self._layout

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
        observations, infos = self.env.reset(seed=seed, options=options)
        info_of = getattr(self.env, "agent_info", None)
        self._infos = {a: info_of(a) if callable(info_of) else {"agent_id": a, "agents": list(self.env.agents)}
                       for a in self.env.possible_agents}
        self._layout = self.env.layout() if callable(getattr(self.env, "layout", None)) else None
        self.turns = []
        for record in self.recorded:
            observations = self._heard(observations, int(record["step"]) - 1)
            actions: dict[str, Any] = {a: (record["agents"].get(a) or {}).get("action") if observations[a].ready
                                       else WAIT for a in self.env.agents}  # as the runner: WAIT when not ready
            self.turns.append(Turn(dict(observations), actions))
            observations, _, _, _, now = self.env.step(actions)
            self._check(int(record["step"]), record["agents"], now)
        return self._heard(observations, self.at), infos

    def _inject(self, say: Say, step: int) -> None:
        self.injected.setdefault(step, []).append(Message(sender=say.agent, text=say.text, step=step))

    def _heard(self, observations: dict[str, Any], step: int) -> dict[str, Any]:
        """The observations of `step` with the messages injected then, delivered to all but their sender."""
        for message in self.injected.get(step, []):
            observations = {a: o if a == message.sender else o.model_copy(update={"messages": [*o.messages, message]})
                            for a, o in observations.items()}
        return observations

    @staticmethod
    def _check(step: int, recorded: dict[str, dict[str, Any]], now: dict[str, dict[str, Any]]) -> None:
        for agent, was in recorded.items():
            again = json.loads(json.dumps(now.get(agent, {}), default=str))
            for name in CHECKED_FIELDS:
                if name in was and again.get(name) != was[name]:
                    raise ForkError(f"the world diverged at step {step}: {agent}'s {name} is now {again.get(name)!r}, "
                                    f"the run recorded {was[name]!r} (was the trace made by another version of the "
                                    "world?)")


Catch = Literal["replay", "restore", "join"]


class ForkedMember:
    """A team member that catches up with the run when reset: a baseline replays its recorded steps (and must
    choose what it chose), a graph agent is restored from its checkpoint, a new member joins as it is."""

    def __init__(self, inner: Any, world: ForkedWorld, catch: Catch, checkpoint: StepCheckpoint | None = None,
                 steps: list[StepCheckpoint] | None = None) -> None:
        self.inner = inner
        self.world = world
        self.catch = catch
        self.checkpoint = checkpoint
        self.steps = steps or []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def reset(self, agent_id: str, env_info: dict[str, Any], seed: int) -> None:
        self.inner.reset(agent_id, env_info, seed)
        if self.catch == "restore" and self.checkpoint is not None:
            restore_member(self.inner, self.checkpoint, self.steps)
        elif self.catch == "replay":
            self._replay(agent_id)

    def act(self, observation: Observation) -> Any:
        return self.inner.act(observation)

    def _replay(self, agent_id: str) -> None:
        for turn in self.world.turns:
            observation = turn.observations.get(agent_id)
            if observation is None or not observation.ready:
                continue  # the runner sent WAIT without asking
            chosen = self.inner.act(observation).text
            if chosen != turn.actions.get(agent_id):
                raise ForkError(f"{agent_id} ({self.inner.name}) diverged at step {observation.time}: it now chooses "
                                f"{chosen}, the run recorded {turn.actions.get(agent_id)} (is it the agent that made "
                                "the trace?)")


class ForkTracer(Tracer):
    """The fork's tracer: `episode_start` says where the run branched and is followed by the original's events
    before the fork step (marked `forked_prefix`) and the injected message, so the trace is one whole episode."""

    def __init__(self, path: Path, forked_from: dict[str, Any], prefix: list[dict[str, Any]],
                 say: Say | None) -> None:
        super().__init__(path)
        self.forked_from = forked_from
        self.prefix = prefix
        self.say = say

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        if kind != "episode_start":
            return super().event(kind, **fields)
        record = super().event(kind, **fields, forked_from=self.forked_from)
        for old in self.prefix:
            super().event(old["type"], **{**{k: v for k, v in old.items() if k != "type"}, "forked_prefix": True})
        if self.say is not None:
            super().event("message", agent=self.say.agent, step=self.forked_from["step"], text=self.say.text,
                          chars=len(self.say.text), truncated=False, injected=True)
        return record


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
              team: Sequence[str] | None = None, say: Say | None = None) -> ForkPlan:
    """Check the asked fork against the run and decide how each member catches up; raises ForkError."""
    from coopgraph.evals.teams import member_kind

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
                    "team": replaced or None, "say": None if say is None else {"agent": say.agent, "text": say.text}}
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


def _own_events_only(listener: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def hear(record: dict[str, Any]) -> None:
        if not record.get("forked_prefix"):
            listener(record)

    return hear


def fork_run(trace: str | Path, at: int, *, llm: str | Callable[[], Any] | None = None,
             team: Sequence[str] | None = None, say: str | tuple[str, str] | None = None,
             out: str | Path | None = None,
             listeners: Sequence[Callable[[dict[str, Any]], None]] = ()) -> dict[str, Any]:
    """Fork `trace` at step `at` and play on; returns what `run_configured` returns, plus `forked_from`.
    `listeners` see the fork's own events as they are written (not those copied from the original)."""
    from coopgraph.checkpoints import sqlite_saver
    from coopgraph.evals.episode_run import _usage
    from coopgraph.evals.runner import run_episode
    from coopgraph.evals.teams import make_team
    from coopgraph.llm.factory import make_lm
    from coopgraph.manifest import manifest

    run = read_run(trace)
    said = None if say is None else parse_say(say)
    plan = plan_fork(run, at, llm=llm, team=team, say=said)
    path = _trace_path(run, at, None if out is None else Path(out))
    forked_from = {"trace": str(run.path.resolve()), "env": run.start["env"], "episode": run.start["episode"],
                   "step": at, "changes": plan.changes}

    def factory(setting: str | Callable[[], Any] | None) -> Callable[[], Any] | None:
        if setting is None or callable(setting):
            return setting
        return lambda: make_lm(setting)

    saver = sqlite_saver(path.with_suffix(".checkpoints.sqlite"))
    by_setting: dict[Any, Any] = {}
    factories = [by_setting.setdefault(s, factory(s)) if isinstance(s, str) else factory(s) for s in plan.settings]
    try:
        members = make_team(plan.names, member_lm_factories=factories, env=run.start["env"], checkpointer=saver,
                            member_settings=[s if isinstance(s, str) else None for s in plan.settings])
    except BaseException:
        saver.conn.close()  # type: ignore[attr-defined]  # LangGraph's SqliteSaver keeps its connection
        path.with_suffix(".checkpoints.sqlite").unlink(missing_ok=True)
        raise
    world = ForkedWorld(run.make_world(), run, at, said)
    recorded = run.checkpoints()
    forked = [ForkedMember(m, world, catch, checkpoint, recorded.get(agent)) for agent, m, catch, checkpoint
              in zip(run.agents, members, plan.catches, plan.checkpoints, strict=True)]
    tracer = ForkTracer(path, forked_from, _prefix_events(run, at, set(plan.changes['team'] or {})), said)
    tracer.listeners.extend(_own_events_only(listener) for listener in listeners)
    graph_members = {a: m for a, m in zip(run.agents, members, strict=True) if hasattr(m, "graph")}
    tracer.event("manifest", **manifest(
        specs={a: m.loaded.path for a, m in graph_members.items()}, llm={a: m.lm.settings_public for a, m in
                                                                          graph_members.items()},
        seed=run.seed, env=run.start["env"], env_options=run.env_options, episode=run.start["episode"],
        team=plan.names, forked_from=forked_from))
    failed = False
    try:
        result = run_episode(cast(Any, world), cast(Any, forked), max_steps=run.start.get("max_steps"),
                             tracer=tracer, seed=run.seed)
        usage = _usage(members, run.agents)
        invalid = sum(1 for e in tracer.events if e["type"] == "invalid_answer" and not e.get("forked_prefix"))
        tracer.event("run_summary", llm_usage=usage, invalid_answers=invalid)
    except (ForkError, KeyError):  # the members could not catch up with the run
        failed = True
        raise
    finally:
        tracer.close()
        world.env.close()
        saver.conn.close()  # type: ignore[attr-defined]
        if failed:  # a fork that could not catch up leaves nothing behind
            path.unlink(missing_ok=True)
            path.with_suffix(".checkpoints.sqlite").unlink(missing_ok=True)
    return {**result.model_dump(mode="json", exclude={"messages"}), "llm_usage": usage, "invalid_answers": invalid,
            "forked_from": forked_from}
