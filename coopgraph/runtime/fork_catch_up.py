"""Bringing a rebuilt world and team to the step a fork starts at, by what the recorded run did.

`ForkedWorld.reset` replays the recorded actions (checking that each step comes out as recorded) and delivers
injected messages; `ForkedMember.reset` lets each member catch up: a baseline replays its steps and must choose
what it chose, a graph agent is restored from its checkpoint, a new member joins as it is. `ForkTracer` writes the
fork's trace so it reads as one whole episode. The episode runner then plays on, unaware of any of this.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from coopgraph.envs.protocol import (
    WAIT,
    AgentInfo,
    Message,
    Observation,
    PrimitiveAction,
    TeamMember,
    TimeUnit,
    World,
    WorldMetrics,
)
from coopgraph.record.recorded_run import RecordedRun, StepCheckpoint, TraceError, restore_member
from coopgraph.record.trace_file import Tracer

ForkError = TraceError  # one class for everything a recorded run cannot do as asked
CHECKED_FIELDS = ("action", "ok", "room", "holding")  # what must come out the same when the world replays a step


@dataclass(frozen=True)
class Say:
    """A message injected at the fork step: partners receive it from `agent` as any message (data, not orders)."""

    agent: str
    text: str


@dataclass
class Turn:
    """One step before the fork: what each agent observed and what the run had it do."""

    observations: dict[str, Observation]
    actions: dict[str, str | None]


class ForkedWorld:
    """The run's world; its `reset` replays the recorded actions up to the fork step and hands out that step's
    observations (with the injected message). Everything else is the wrapped world's."""

    def __init__(self, env: Any, run: RecordedRun, at: int, say: Say | None) -> None:
        if not isinstance(env, World):
            raise ForkError(f"{type(env).__name__} does not implement the World protocol; it cannot be forked")
        self.env: Any = env
        self.recorded = [e for e in run.env_steps() if int(e["step"]) <= at]
        self.at = at
        self.injected: dict[int, list[Message]] = {}  # messages an earlier fork injected (up to `at`), this one's
        for event in run.events:
            if event.get("type") == "message" and event.get("injected") and int(event["step"]) <= at:
                self._inject(Say(event["agent"], event["text"]), int(event["step"]))
        if say is not None:
            self._inject(say, at)
        self.turns: list[Turn] = []
        self._infos: dict[str, AgentInfo] = {}
        self._layout: dict[str, Any] | None = None
        self.name: str = env.name

    # The World protocol: the wrapped world's, except what is fixed at the start of the episode.
    @property
    def time_unit(self) -> TimeUnit:
        return self.env.time_unit

    @property
    def default_episode(self) -> str:
        return self.env.default_episode

    @property
    def episode_id(self) -> str:
        return self.env.episode_id

    def metrics(self) -> WorldMetrics:
        return self.env.metrics()

    def agent_info(self, agent: str) -> AgentInfo:
        """What the agent knew at the start of the episode (not at the fork step): members reset as then."""
        return self._infos[agent]

    def layout(self) -> dict[str, Any] | None:
        """The house as it was at the start, which the trace viewer moves things from."""
        return self._layout

    # PettingZoo's stepping API, passed through.
    @property
    def agents(self) -> list[str]:
        return self.env.agents  # type: ignore[no-any-return]

    @property
    def possible_agents(self) -> list[str]:
        return self.env.possible_agents  # type: ignore[no-any-return]

    def step(self, actions: dict[str, Any]) -> Any:
        return self.env.step(actions)

    def close(self) -> None:
        self.env.close()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
        observations, infos = self.env.reset(seed=seed, options=options)
        self._infos = {a: self.env.agent_info(a) for a in self.env.possible_agents}
        self._layout = self.env.layout()
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
    choose what it chose), a graph agent is restored from its checkpoint, a new member joins as it is. Everything
    else of the `TeamMember` protocol is the wrapped member's."""

    def __init__(self, inner: TeamMember, world: ForkedWorld, catch: Catch, checkpoint: StepCheckpoint | None = None,
                 steps: list[StepCheckpoint] | None = None) -> None:
        self.inner = inner
        self.world = world
        self.catch = catch
        self.checkpoint = checkpoint
        self.steps = steps or []

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def decides_concurrently(self) -> bool:
        return self.inner.decides_concurrently

    @property
    def samples(self) -> bool:
        return self.inner.samples

    def set_tracer(self, tracer: Any) -> None:
        self.inner.set_tracer(tracer)

    def llm_usage(self) -> Mapping[str, float] | None:
        return self.inner.llm_usage()

    def close(self) -> None:
        self.inner.close()

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        self.inner.reset(agent_id, env_info, seed)
        if self.catch == "restore" and self.checkpoint is not None:
            restore_member(self.inner, self.checkpoint, self.steps)
        elif self.catch == "replay":
            self._replay(agent_id)

    def act(self, observation: Observation) -> PrimitiveAction:
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
