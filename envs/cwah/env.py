"""Communicative Watch-And-Help as a PettingZoo ParallelEnv with typed observations.

`reset`/`step` return `HouseObservation` objects (protocol.py) per agent; actions are `PrimitiveAction`s or
their text form (`"[grab] <apple> (386)"`). The gymnasium spaces are Text spaces describing those text
forms (`obs.model_dump_json()`, `action.text`), which is what PettingZoo's API test samples from.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from pettingzoo import ParallelEnv

from coopgraph.envs.cwah.config import CWAHConfig
from coopgraph.envs.cwah.dynamics import Outcome, apply_action
from coopgraph.envs.cwah.episode import Episode
from coopgraph.envs.cwah.episode_sets import resolve_episode
from coopgraph.envs.cwah.metrics import EpisodeMetrics, measure
from coopgraph.envs.cwah.observation import Observer
from coopgraph.envs.cwah.state import AGENT_IDS, WorldState
from coopgraph.envs.protocol import (
    AgentInfo,
    GoalPredicate,
    HouseObservation,
    Message,
    PrimitiveAction,
    RoomInfo,
    TimeUnit,
    message_to,
)
from coopgraph.envs.text_spaces import TextSpaces


class CWAHAgentInfo(AgentInfo):
    """What a C-WAH agent knows before the first step. `oracle_episode` is privileged (the full initial state);
    only the oracle baseline reads it."""

    task: str
    goal: list[GoalPredicate]
    rooms: list[RoomInfo]
    floor_plan: dict[str, list[Any]]
    config: CWAHConfig
    oracle_episode: Episode


class CWAHEnv(TextSpaces, ParallelEnv):
    """A decentralised, partially observed household task for 1–4 agents with costly messages."""

    metadata = {"name": "cwah_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    time_unit: ClassVar[TimeUnit] = "steps"
    default_episode: ClassVar[str] = "test/0"

    def __init__(
        self,
        episode: Episode | str | Path = "test/0",
        *,
        num_agents: int = 2,
        max_steps: int | None = None,
        noise: int = 0,
        config: CWAHConfig | None = None,
        name: str = "cwah",
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        if not 1 <= num_agents <= len(AGENT_IDS):
            raise ValueError(f"num_agents must be 1..{len(AGENT_IDS)}, got {num_agents}")
        updates = dict(settings)
        if max_steps is not None:
            updates["max_steps"] = max_steps
        unknown = set(updates) - set(CWAHConfig.model_fields)
        if unknown:
            raise TypeError(
                f"unknown C-WAH option(s) {sorted(unknown)}; known: episode, num_agents, max_steps, "
                f"noise, config, render_mode, {', '.join(CWAHConfig.model_fields)}"
            )
        self.config = CWAHConfig.model_validate({**(config or CWAHConfig()).model_dump(), **updates})
        self.name = name
        self.noise = noise
        self.render_mode = render_mode
        self.episode = resolve_episode(episode, noise)
        self.possible_agents = list(AGENT_IDS[:num_agents])
        self.agents: list[str] = []
        self._seed = 0
        self._rng = random.Random(0)
        self.world = WorldState(self.episode, self.possible_agents)
        self.observer = Observer(self.world, self.config.max_steps)
        self.step_count = 0
        self._inbox: list[Message] = []
        self.last_outcomes: dict[str, Outcome] = {}
        self.set_text_spaces(self.config.max_message_chars)



    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, HouseObservation], dict[str, dict[str, Any]]]:
        """Start the episode afresh; `options={"episode": ...}` switches episode (same noise)."""
        if options and "episode" in options:
            self.episode = resolve_episode(options["episode"], self.noise)
        if seed is not None:
            self._seed = seed
        self._rng = random.Random(f"{self._seed}/{self.episode.episode_id}")
        self.world = WorldState(self.episode, self.possible_agents)
        self.observer = Observer(self.world, self.config.max_steps)
        self.agents = list(self.possible_agents)
        self.step_count = 0
        self._inbox = []
        self.last_outcomes = {}
        observations = {a: self.observer.observe(a, 0, []) for a in self.agents}
        return observations, {a: self._info(a, None, None) for a in self.agents}

    def _coerce(self, action: Any) -> tuple[PrimitiveAction, Outcome | None]:
        if action is None:
            return PrimitiveAction(kind="wait"), Outcome(ok=False, reason="no action given; waited")
        if isinstance(action, PrimitiveAction):
            return action, None
        try:
            if isinstance(action, dict):
                return PrimitiveAction.model_validate(action), None
            return PrimitiveAction.parse(str(action)), None
        except ValueError as exc:
            return PrimitiveAction(kind="wait"), Outcome(ok=False, reason=f"could not read the action: {exc}")

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, HouseObservation], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.step_count += 1
        before = sum(self.world.satisfied_counts())
        order = self._rng.sample(self.agents, len(self.agents))
        applied: dict[str, PrimitiveAction] = {}
        outbox: list[Message] = []
        for agent_id in order:
            action, rejected = self._coerce(actions.get(agent_id))
            if rejected is not None:
                self.world.agents[agent_id].invalid_actions += 1
                outcome = rejected
            else:
                outcome = apply_action(self.world, agent_id, action, self.config, self.step_count)
            applied[agent_id] = action
            self.last_outcomes[agent_id] = outcome
            if outcome.message is not None:
                outbox.append(outcome.message)
        self._inbox = sorted(outbox, key=lambda m: self.possible_agents.index(m.sender))
        reward = float(sum(self.world.satisfied_counts()) - before)
        done = self.world.is_done()
        truncated = not done and self.step_count >= self.config.max_steps
        live = list(self.agents)
        observations, infos = {}, {}
        for agent_id in live:
            outcome = self.last_outcomes[agent_id]
            observations[agent_id] = self.observer.observe(
                agent_id, self.step_count, self._inbox, applied[agent_id].text, outcome.ok, outcome.reason
            )
            infos[agent_id] = self._info(agent_id, applied[agent_id], outcome)
        if done or truncated:
            self.agents = []
        return (
            observations,
            dict.fromkeys(live, reward),
            dict.fromkeys(live, done),
            dict.fromkeys(live, truncated),
            infos,
        )

    def _info(self, agent_id: str, action: PrimitiveAction | None, outcome: Outcome | None) -> dict[str, Any]:
        agent = self.world.agents[agent_id]
        done = self.world.satisfied_counts()
        return {
            "step": self.step_count,
            "action": None if action is None else action.text,
            "ok": True if outcome is None else outcome.ok,
            "reason": "" if outcome is None else outcome.reason,
            "travelled": 0.0 if outcome is None else round(outcome.travelled, 3),
            "message": None if outcome is None or outcome.message is None else outcome.message.text,
            "message_truncated": bool(outcome and outcome.chars_cut),
            "message_chars_cut": 0 if outcome is None else outcome.chars_cut,
            "room": self.world.room_name(agent.room),
            "position": agent.position,
            "holding": list(agent.holding),
            "subgoals_done": sum(done),
            "subgoals_total": sum(p.count for p in self.world.goal),
            "success": self.world.is_done(),
            **message_to(None if outcome is None else outcome.message),
        }

    @property
    def episode_id(self) -> str:
        return self.episode.episode_id

    def agent_info(self, agent_id: str) -> CWAHAgentInfo:
        """What a team member may know before the first step (`TeamMember.reset`'s env_info)."""
        return CWAHAgentInfo(
            env=self.name, episode_id=self.episode.episode_id, task=self.episode.task, agent_id=agent_id,
            agent_name=self.world.agents[agent_id].name, agents=list(self.possible_agents), goal=list(self.world.goal),
            goal_text=self.observer.goal_text, rooms=list(self.observer.rooms),
            floor_plan={"rooms": list(self.episode.rooms), "doors": list(self.episode.doors)}, config=self.config,
            max_steps=self.config.max_steps, oracle_episode=self.episode,
        )

    def layout(self) -> dict[str, Any]:
        """The house for the trace viewer: room rectangles, doors, objects and agents where they start."""
        return self.episode.model_dump(mode="json", include={"rooms", "doors", "objects", "agent_starts"})

    def metrics(self) -> EpisodeMetrics:
        return measure(self.world, self.step_count)

    def render(self) -> str:
        world = self.world
        lines = [
            f"{self.episode.episode_id} step {self.step_count}/{self.config.max_steps} "
            f"subgoals {sum(world.satisfied_counts())}/{sum(p.count for p in world.goal)}"
        ]
        for agent in world.agents.values():
            held = ", ".join(f"<{world.objects[i].name}> ({i})" for i in agent.holding) or "nothing"
            lines.append(
                f"  {agent.name} in <{world.room_name(agent.room)}> at {agent.position} holding {held}"
            )
        return "\n".join(lines)

    def close(self) -> None:
        self.agents = []


def make_cwah(**options: Any) -> CWAHEnv:
    """Factory registered as `"cwah"`."""
    options.setdefault("name", "cwah")
    return CWAHEnv(**options)


def make_cwah_noisy(noise: int = 10, **options: Any) -> CWAHEnv:
    """Factory registered as `"cwah-noisy"`: C-WAH plus `noise` dummy objects."""
    options.setdefault("name", "cwah-noisy")
    return CWAHEnv(noise=noise, **options)
