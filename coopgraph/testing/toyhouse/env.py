"""The toyhouse as a PettingZoo ParallelEnv: one tick per `step`, typed `HouseObservation`s, text actions.

An agent whose last action still runs (opening takes two ticks, a long message more than one) is not
`ready`: whatever it is sent meanwhile is ignored, and messages wait for it until it is ready again. Agents
act in an order that rotates every tick, so two grabs of one item resolve the same way on every run.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import ParallelEnv
from pydantic import BaseModel

from coopgraph.envs.protocol import (
    AgentInfo,
    GoalPredicate,
    HouseObservation,
    PrimitiveAction,
    RoomInfo,
    TimeUnit,
    message_to,
)
from coopgraph.envs.text_spaces import TextSpaces
from coopgraph.testing.toyhouse.episodes import EpisodeSpec, grid, load_episode
from coopgraph.testing.toyhouse.grid import Grid
from coopgraph.testing.toyhouse.observe import describe_goal, observe, room_infos
from coopgraph.testing.toyhouse.world import AGENT_IDS, HouseRules, Outcome, World


class AgentMetrics(BaseModel):
    travel_distance: float
    communication_steps: int
    characters_sent: int
    invalid_actions: int


class HouseMetrics(BaseModel):
    """Team metrics (the runner's `summary()` and `per_agent`); distances in cells, time in ticks."""

    success: bool
    steps: int
    subgoals_done: int
    subgoals_total: int
    travel_distance: float
    communication_steps: int
    characters_sent: int
    invalid_actions: int
    per_agent: dict[str, AgentMetrics]

    def summary(self) -> dict[str, float]:
        return {key: float(value) for key, value in self.model_dump(exclude={"per_agent"}).items()}


class ToyhouseAgentInfo(AgentInfo):
    """What a toyhouse agent knows before the first tick: who is who, the goal, the house's grid, the rules."""

    agent_names: dict[str, str]
    goal: list[GoalPredicate]
    rooms: list[RoomInfo]
    grid: Grid
    config: HouseRules


class ToyhouseEnv(TextSpaces, ParallelEnv):
    """Two agents (or one) fetch items and deliver them to surfaces and containers in a three-room house."""

    metadata = {"name": "toyhouse_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    time_unit: ClassVar[TimeUnit] = "ticks"
    default_episode: ClassVar[str] = "toyhouse/0"

    def __init__(self, episode: str = "toyhouse/0", *, num_agents: int = 2, max_steps: int | None = None,
                 name: str = "toyhouse", render_mode: str | None = None, **rules: Any) -> None:
        if not 1 <= num_agents <= len(AGENT_IDS):
            raise ValueError(f"num_agents must be 1..{len(AGENT_IDS)}, got {num_agents}")
        unknown = set(rules) - set(HouseRules.model_fields)
        if unknown:
            raise TypeError(f"unknown toyhouse option(s) {sorted(unknown)}; known: episode, num_agents, max_steps, "
                            f"render_mode, {', '.join(HouseRules.model_fields)}")
        self.name, self.render_mode = name, render_mode
        self._rules = HouseRules.model_validate({**rules, "max_steps": max_steps})
        self.grid = grid()
        self.episode: EpisodeSpec = load_episode(episode)
        self.possible_agents = list(AGENT_IDS[:num_agents])
        self.agents: list[str] = []
        self.world = World(self.episode, self.grid, self.possible_agents, self.config)
        self.set_text_spaces(self._rules.max_message_chars)

    @property
    def config(self) -> HouseRules:
        """The rules with the horizon resolved (the episode's unless `max_steps` was given)."""
        return self._rules.model_copy(update={"max_steps": self._rules.max_steps or self.episode.horizon})

    @property
    def horizon(self) -> int:
        return self.config.max_steps  # type: ignore[return-value]



    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, HouseObservation], dict[str, dict[str, Any]]]:
        """Start afresh; `options={"episode": "toyhouse/2"}` switches episode. The world has no randomness."""
        if options and "episode" in options:
            self.episode = load_episode(options["episode"])
        self.world = World(self.episode, self.grid, self.possible_agents, self.config)
        self.agents = list(self.possible_agents)
        return ({a: self._observe(a) for a in self.agents},
                {a: self._info(a, None) for a in self.agents})

    @staticmethod
    def _coerce(action: Any) -> PrimitiveAction | Outcome:
        if action is None:
            return PrimitiveAction(kind="wait")
        if isinstance(action, PrimitiveAction):
            return action
        try:
            return PrimitiveAction.parse(str(action))
        except ValueError as exc:
            return Outcome(ok=False, reason=f"could not read the action: {exc}")

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, HouseObservation], dict[str, float],
                                                     dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        world = self.world
        before = sum(world.satisfied())
        shift = world.time % len(self.agents)
        outcomes: dict[str, Outcome | None] = {}
        for agent_id in self.agents[shift:] + self.agents[:shift]:
            if not world.ready(agent_id):
                outcomes[agent_id] = None  # its last action still runs
                continue
            action = self._coerce(actions.get(agent_id))
            if isinstance(action, Outcome):
                outcome = world.reject(agent_id, action.reason)
            else:
                outcome = world.apply(agent_id, action)
            outcomes[agent_id] = outcome
        world.time += 1
        sent = [o.message for o in outcomes.values() if o is not None and o.message is not None]
        for message in sent:
            for other in world.agents.values():
                if message.reaches(other.id):
                    other.inbox.append(message)
        reward = float(sum(world.satisfied()) - before)
        done = world.is_done()
        truncated = not done and world.time >= self.horizon
        live = list(self.agents)
        observations = {a: self._observe(a) for a in live}
        infos = {a: self._info(a, outcomes[a]) for a in live}
        if done or truncated:
            self.agents = []
        return observations, dict.fromkeys(live, reward), dict.fromkeys(live, done), dict.fromkeys(live, truncated), \
            infos

    def _observe(self, agent_id: str) -> HouseObservation:
        agent = self.world.agents[agent_id]
        ready = self.world.ready(agent_id)
        messages, agent.inbox = (agent.inbox, []) if ready else ([], agent.inbox)
        return observe(self.world, agent_id, self.horizon, messages, ready)

    def _info(self, agent_id: str, outcome: Outcome | None) -> dict[str, Any]:
        agent = self.world.agents[agent_id]
        done = self.world.satisfied()
        return {
            "step": self.world.time,
            "action": agent.last_action if outcome is not None else None,
            "ok": True if outcome is None else outcome.ok,
            "reason": "" if outcome is None else outcome.reason,
            "cost": 0 if outcome is None else outcome.cost,
            "ready": self.world.ready(agent_id),
            "message": None if outcome is None or outcome.message is None else outcome.message.text,
            "message_truncated": bool(outcome and outcome.message and outcome.message.truncated),
            "room": self.grid.rooms[self.world.room_of(agent.cell)].name,
            "position": agent.cell,
            "holding": list(agent.holding),
            "subgoals_done": sum(min(n, p.count) for n, p in zip(done, self.world.goal, strict=True)),
            "subgoals_total": sum(p.count for p in self.world.goal),
            "success": self.world.is_done(),
            **message_to(None if outcome is None else outcome.message),
        }

    @property
    def episode_id(self) -> str:
        return self.episode.episode_id

    def layout(self) -> dict[str, Any] | None:
        """None: the trace viewer draws no map of the toyhouse."""
        return None

    def agent_info(self, agent_id: str) -> ToyhouseAgentInfo:
        """What a team member may know before the first tick (`TeamMember.reset`'s env_info)."""
        world = self.world
        return ToyhouseAgentInfo(
            env=self.name, episode_id=self.episode.episode_id, agent_id=agent_id,
            agent_name=world.agents[agent_id].name,
            agents=list(self.possible_agents), agent_names={a.id: a.name for a in world.agents.values()},
            goal=list(world.goal), goal_text=describe_goal(world.goal), rooms=room_infos(self.grid), grid=self.grid,
            config=self.config, max_steps=self.horizon,
        )

    def metrics(self) -> HouseMetrics:
        agents = list(self.world.agents.values())
        done = self.world.satisfied()
        return HouseMetrics(
            success=self.world.is_done(), steps=self.world.time,
            subgoals_done=sum(min(n, p.count) for n, p in zip(done, self.world.goal, strict=True)),
            subgoals_total=sum(p.count for p in self.world.goal),
            travel_distance=float(sum(a.travelled for a in agents)),
            communication_steps=sum(a.messages_sent for a in agents),
            characters_sent=sum(a.characters_sent for a in agents),
            invalid_actions=sum(a.invalid_actions for a in agents),
            per_agent={a.id: AgentMetrics(travel_distance=float(a.travelled), communication_steps=a.messages_sent,
                                          characters_sent=a.characters_sent, invalid_actions=a.invalid_actions)
                       for a in agents},
        )

    def render(self) -> str:
        world = self.world
        lines = [f"{self.episode.episode_id} tick {world.time}/{self.horizon} "
                 f"subgoals {sum(world.satisfied())}/{sum(p.count for p in world.goal)}"]
        for agent in world.agents.values():
            held = ", ".join(f"<{world.things[i].name}> ({i})" for i in agent.holding) or "nothing"
            lines.append(f"  {agent.name} at {agent.cell} in the {self.grid.rooms[world.room_of(agent.cell)].name}"
                         f" holding {held}")
        return "\n".join(lines)

    def close(self) -> None:
        self.agents = []


def make_toyhouse(**options: Any) -> ToyhouseEnv:
    """Factory registered as `"toyhouse"`: `make("toyhouse", episode="toyhouse/1", num_agents=1)`."""
    return ToyhouseEnv(**options)
