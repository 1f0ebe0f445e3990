"""TDW-MAT (ThreeDWorld Multi-Agent Transport) as a text world: a PettingZoo ParallelEnv whose time is frames.

`make("tdw-mat", episode="train/0", num_agents=2, perception="oracle")`; `dataset=DIR` reads a CoELA dataset
folder instead of the shipped train split. Each `step` starts the actions of the agents that are free, then runs
the clock until any agent's action ends (CoELA's asynchronous setting): the others' actions go on, their
observations say `ready=False`, and what they are sent meanwhile is ignored. Messages reach every other agent at
the next step (held for a busy one until it is free). The episode ends when every target is at the bed or at
3000 frames. Any rule in `TDWRules` is an option (`frames_per_move=14`, `p_miss={...}`); `faithful_explore=True`
tells the agents' skill books to reproduce the reference code, where only an agent's first explore turns.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from pettingzoo import ParallelEnv

from coopgraph.envs.protocol import AgentInfo, GoalPredicate, PrimitiveAction, RoomInfo, TimeUnit, message_to
from coopgraph.envs.tdw_mat.episode import TDWEpisode, load_episode
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, load_floorplan
from coopgraph.envs.tdw_mat.metrics import AgentMetrics, TDWMetrics
from coopgraph.envs.tdw_mat.observation import TDWObservation, goal_predicates, observe, room_infos
from coopgraph.envs.tdw_mat.rules import TDWRules
from coopgraph.envs.tdw_mat.trace_layout import house_layout
from coopgraph.envs.tdw_mat.world import AGENT_IDS, BED_ID, PRIMITIVES, Outcome, World
from coopgraph.envs.text_spaces import TextSpaces

#: TDW's action status: 0 ongoing, 1 success, 2 failure.
ONGOING, SUCCESS, FAILURE = 0, 1, 2


class TDWAgentInfo(AgentInfo):
    """What a TDW-MAT agent knows before the first frame: the house, the goal, who is who, the rules.
    `oracle_episode` is privileged: only the full-information oracle reads it."""

    agent_names: dict[str, str]
    goal: list[GoalPredicate]
    task: str
    rooms: list[RoomInfo]
    floorplan: FloorPlan
    bed_id: int
    rules: TDWRules
    config: TDWRules
    primitives: list[str]
    faithful_explore: bool
    oracle_episode: TDWEpisode


class TDWMatEnv(TextSpaces, ParallelEnv):
    """Two to four agents transport targets, by hand or in containers, to the bed within 3000 frames."""

    metadata = {"name": "tdw_mat_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    time_unit: ClassVar[TimeUnit] = "frames"
    default_episode: ClassVar[str] = "train/0"

    def __init__(self, episode: str | int = "train/0", *, num_agents: int = 2, dataset: str | Path | None = None,
                 max_steps: int | None = None, faithful_explore: bool = False, name: str = "tdw-mat",
                 render_mode: str | None = None, **rules: Any) -> None:
        if not 1 <= num_agents <= len(AGENT_IDS):
            raise ValueError(f"num_agents must be 1..{len(AGENT_IDS)}, got {num_agents}")
        unknown = set(rules) - set(TDWRules.model_fields)
        if unknown:
            raise TypeError(f"unknown tdw-mat option(s) {sorted(unknown)}; known: episode, num_agents, dataset, "
                            f"max_steps, faithful_explore, render_mode, {', '.join(TDWRules.model_fields)}")
        if max_steps is not None:
            rules["max_frames"] = max_steps
        self.rules = TDWRules.model_validate(rules)
        self.name, self.render_mode, self.dataset = name, render_mode, dataset
        self.faithful_explore = faithful_explore  # for the kit's skill book: only a first explore turns
        self.possible_agents = list(AGENT_IDS[:num_agents])
        self.agents: list[str] = []
        self.set_text_spaces(self.rules.max_message_chars)
        self._load(episode)
        self._begin(self.rules.seed)

    def _load(self, episode: str | int) -> None:
        self.episode: TDWEpisode = load_episode(episode, self.dataset)
        self.plan: FloorPlan = load_floorplan(self.episode.scene, self.episode.layout, self.episode.room_types)

    def _begin(self, seed: int | None) -> None:
        self.world = World(self.episode, self.plan, self.possible_agents, self.rules)
        self.rng = random.Random(self.rules.seed if seed is None else seed)
        self.statuses: dict[str, int] = dict.fromkeys(self.possible_agents, SUCCESS)

    @property
    def config(self) -> TDWRules:
        return self.rules

    @property
    def horizon(self) -> int:
        return self.rules.max_frames



    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, TDWObservation], dict[str, dict[str, Any]]]:
        """Start afresh; `options={"episode": ...}` switches episode; `seed` seeds the detector's misses."""
        if options and "episode" in options:
            self._load(options["episode"])
        self._begin(seed)
        self.agents = list(self.possible_agents)
        return {a: self._observe(a) for a in self.agents}, {a: self._info(a, None) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, TDWObservation], dict[str, float],
                                                     dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        world = self.world
        before = world.delivered()
        started: dict[str, Outcome | None] = {}
        for agent_id in self.agents:
            if not world.ready(agent_id):
                started[agent_id] = None  # its action still runs: what it was sent is ignored
                continue
            action = actions.get(agent_id)
            try:
                parsed = action if isinstance(action, PrimitiveAction) else \
                    PrimitiveAction.parse(str(action)) if action is not None else PrimitiveAction(kind="wait")
            except ValueError as exc:
                started[agent_id] = world.reject(agent_id, f"could not read the action: {exc}")
                continue
            started[agent_id] = world.start(agent_id, parsed)
        finished = world.advance()
        for agent_id in self.agents:
            body = world.agents[agent_id]
            self.statuses[agent_id] = ONGOING if agent_id not in finished else \
                SUCCESS if body.last is not None and body.last.ok else FAILURE
        reward = float(world.delivered() - before)
        done = world.delivered() == len(world.targets)
        truncated = not done and world.time >= self.horizon
        live = list(self.agents)
        observations = {a: self._observe(a) for a in live}
        infos = {a: self._info(a, started[a]) for a in live}
        if done or truncated:
            self.agents = []
        return (observations, dict.fromkeys(live, reward), dict.fromkeys(live, done),
                dict.fromkeys(live, truncated), infos)

    # ------------------------------------------------------------------------------------------- reading
    def _observe(self, agent_id: str) -> TDWObservation:
        world = self.world
        body = world.agents[agent_id]
        ready = world.ready(agent_id)
        messages, body.inbox = (body.inbox, []) if ready else ([], body.inbox)
        core: dict[str, Any] = {"time": world.time, "messages": messages, "ready": ready}
        if body.last is not None:
            last = body.last
            core.update(last_action=last.action.text, last_action_ok=last.ok, last_action_reason=last.reason,
                        last_action_cause=last.cause, last_action_cost=last.cost, last_action_group=last.group)
        return observe(world, body, self.rng, **core)

    def _info(self, agent_id: str, started: Outcome | None) -> dict[str, Any]:
        world = self.world
        body = world.agents[agent_id]
        last = body.last if self.statuses[agent_id] != ONGOING else None
        shown = started or last
        result = last or started
        return {
            "step": world.time,
            "action": shown.action.text if shown else None,
            "ok": result.ok if result else True,
            "reason": (last.reason if last and not last.ok else started.reason if started else ""),
            "cost": started.cost if started else 0,
            "ready": world.ready(agent_id),
            "action_status": self.statuses[agent_id],
            "message": started.message.text if started and started.message else None,
            "message_truncated": bool(started and started.message and started.message.truncated),
            "room": self.plan.rooms[body.room_id].type,
            "room_id": body.room_id,
            "position": body.position,
            "heading": body.heading,
            "holding": body.held(),
            "delivered": world.delivered(),
            "subgoals_done": world.delivered(),
            "subgoals_total": len(world.targets),
            "transport_rate": world.delivered() / len(world.targets),
            "success": world.delivered() == len(world.targets),
            **message_to(started.message if started else None),
        }

    @property
    def episode_id(self) -> str:
        return self.episode.episode_id

    def agent_info(self, agent_id: str) -> TDWAgentInfo:
        """What a team member may know before the first frame: the house, the goal, who is who, the rules."""
        world = self.world
        return TDWAgentInfo(
            env=self.name, episode_id=self.episode.episode_id, agent_id=agent_id,
            agent_name=world.agents[agent_id].name, agents=list(self.possible_agents),
            agent_names={a.id: a.name for a in world.agents.values()}, goal=goal_predicates(world),
            goal_text=self.episode.goal_text(), task=self.episode.task, rooms=room_infos(self.plan),
            floorplan=self.plan, bed_id=BED_ID, rules=self.rules, config=self.rules, primitives=list(PRIMITIVES),
            faithful_explore=self.faithful_explore, oracle_episode=self.episode, max_steps=self.horizon,
        )

    def metrics(self) -> TDWMetrics:
        world = self.world
        bodies = list(world.agents.values())
        delivered, total = world.delivered(), len(world.targets)
        return TDWMetrics(
            success=delivered == total, transport_rate=delivered / total, delivered=delivered, targets=total,
            task_food=self.episode.task == "food", frames=world.time, steps=world.time, subgoals_done=delivered,
            subgoals_total=total, communication_steps=sum(b.messages_sent for b in bodies),
            characters_sent=sum(b.characters_sent for b in bodies),
            invalid_actions=sum(b.invalid_actions for b in bodies),
            per_agent={b.id: AgentMetrics(metres_walked=round(b.metres_walked, 2), communication_steps=b.messages_sent,
                                          characters_sent=b.characters_sent, invalid_actions=b.invalid_actions)
                       for b in bodies})

    def layout(self) -> dict[str, Any]:
        """The house for the trace viewer's map replay (rooms, doors, bed, things and agents at the start)."""
        return house_layout(self.world, self.plan)

    def render(self) -> str:
        world = self.world
        lines = [f"{self.episode.episode_id} frame {world.time}/{self.horizon} "
                 f"transported {world.delivered()}/{len(world.targets)}"]
        for body in world.agents.values():
            held = ", ".join(f"<{world.things[i].name}> ({i})" for i in body.held()) or "nothing"
            lines.append(f"  {body.name} at ({body.position[0]:.1f}, {body.position[1]:.1f}) facing "
                         f"{body.heading:g} in the {self.plan.rooms[body.room_id].label}, holding {held}")
        return "\n".join(lines)

    def close(self) -> None:
        self.agents = []


def make_tdw_mat(**options: Any) -> TDWMatEnv:
    """Factory registered as `"tdw-mat"`: `make("tdw-mat", episode="train/3", perception="detector")`."""
    return TDWMatEnv(**options)
