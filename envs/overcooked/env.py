"""Overcooked-AI as a PettingZoo ParallelEnv for two cooks, on overcooked-ai 1.1.0's gridworld (see `mdp.py`).

`make("overcooked", layout="cramped_room", horizon=400)` (the runner's `episode=` names the layout too). Each tick
both cooks act at once: `[north]`, `[south]`, `[east]`, `[west]`, `[stay]` (or `[wait]`), `[interact]`, or
`[send_message] text` (the cook stays; the partner reads it next tick; LLM-Co's agents never talk). An unreadable
action is a stay that counts as invalid. Observations are typed (`OvercookedObservation`); the gymnasium spaces
are Text spaces of their JSON and of an action's text, as in the other worlds. The episode never ends early: it
truncates at the horizon. Rewards are the team's points of the tick (20 per soup served).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pettingzoo import ParallelEnv
from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.overcooked.layouts import Layout, load_layout
from coopgraph.envs.overcooked.mdp import KitchenGridworld, KitchenState
from coopgraph.envs.overcooked.metrics import CookMetrics, OvercookedMetrics
from coopgraph.envs.overcooked.observation import FACING, HELD_WORDS, OvercookedObservation
from coopgraph.envs.overcooked.observe import GOAL_TEXT, held, observe, pots
from coopgraph.envs.overcooked.upstream import Action, Direction
from coopgraph.envs.protocol import (
    SEND_MESSAGE,
    AffordanceGroup,
    AgentInfo,
    Message,
    PrimitiveAction,
    TimeUnit,
)
from coopgraph.envs.text_spaces import TextSpaces

AGENT_IDS: tuple[str, str] = ("alice", "bob")
AGENT_NAMES: dict[str, str] = {"alice": "Alice", "bob": "Bob"}  # LLM-Co's names; Alice is the grid's `1`
MOVES: dict[str, Any] = {"north": Direction.NORTH, "south": Direction.SOUTH, "east": Direction.EAST,
                         "west": Direction.WEST, "stay": Action.STAY, "wait": Action.STAY,
                         "interact": Action.INTERACT, SEND_MESSAGE: Action.STAY}


class OvercookedConfig(BaseModel):
    """The episode's settings: the layout, the horizon in ticks, the longest message delivered whole."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layout: str = "cramped_room"
    max_steps: int = Field(default=400, ge=1, description="the horizon in ticks (the paper plays 400)")
    max_message_chars: int = Field(default=500, ge=1)


class OvercookedAgentInfo(AgentInfo):
    """What a cook knows before the first tick: the kitchen (`layout` names it), who is who, the rules."""

    layout: str
    terrain: tuple[str, ...]
    shared_counters: list[list[int]]
    starts: list[list[int]]
    agent_index: int
    agent_names: dict[str, str]
    config: OvercookedConfig


@dataclass
class _Cook:
    """What the environment counts for one cook."""

    deliveries: int = 0
    points: int = 0
    invalid_actions: int = 0
    messages_sent: int = 0
    characters_sent: int = 0
    inbox: list[Message] = field(default_factory=list)


@dataclass
class _Outcome:
    action: PrimitiveAction
    ok: bool = True
    reason: str = ""
    group: AffordanceGroup | None = None
    message: Message | None = None
    served: bool = False


class OvercookedEnv(TextSpaces, ParallelEnv):
    """Two cooks make three-onion soups in one Overcooked layout for a fixed number of ticks."""

    metadata = {"name": "overcooked_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    time_unit: ClassVar[TimeUnit] = "ticks"
    default_episode: ClassVar[str] = "cramped_room"

    def __init__(self, layout: str | None = None, *, episode: str | None = None, horizon: int | None = None,
                 max_steps: int | None = None, num_agents: int = 2, max_message_chars: int = 500,
                 name: str = "overcooked", render_mode: str | None = None) -> None:
        if layout is not None and episode is not None and layout != episode:
            raise ValueError(f"layout={layout!r} and episode={episode!r} disagree: they name the same thing")
        if horizon is not None and max_steps is not None and horizon != max_steps:
            raise ValueError(f"horizon={horizon} and max_steps={max_steps} disagree: they name the same thing")
        self.config = OvercookedConfig(layout=layout or episode or "cramped_room",
                                       max_steps=horizon or max_steps or 400, max_message_chars=max_message_chars)
        self.name, self.render_mode = name, render_mode
        self._load(self.config.layout)
        if num_agents != len(AGENT_IDS):
            raise ValueError(f"Overcooked is played by {len(AGENT_IDS)} cooks, got num_agents={num_agents}")
        self.possible_agents = list(AGENT_IDS)
        self.agents: list[str] = []
        self.set_text_spaces(max_message_chars)
        self._start()

    def _load(self, name: str) -> None:
        layout = load_layout(name)
        if len(layout.starts) != len(AGENT_IDS):
            raise ValueError(f"layout {name!r} ({layout.path}) has {len(layout.starts)} player(s); this world plays "
                             f"{len(AGENT_IDS)}")
        self.grid_layout: Layout = layout  # `layout()` is the trace's drawing of it
        self.episode = layout  # `episode.episode_id` names the layout in result tables
        self.mdp = KitchenGridworld(layout)
        self.config = self.config.model_copy(update={"layout": layout.name})

    def _start(self) -> None:
        self.mdp.configure_rules()
        self.state: KitchenState = self.mdp.get_standard_start_state()
        self.time = 0
        self.score = 0
        self.cooks = {a: _Cook() for a in self.possible_agents}
        self.last: dict[str, _Outcome] = {}

    @property
    def horizon(self) -> int:
        return self.config.max_steps



    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, OvercookedObservation], dict[str, dict[str, Any]]]:
        """Start afresh; `options={"layout": name}` (or `"episode"`) switches layout. The world has no randomness."""
        name = (options or {}).get("layout") or (options or {}).get("episode")
        if name:
            self._load(name)
        self._start()
        self.agents = list(self.possible_agents)
        return {a: self._observe(a) for a in self.agents}, {a: self._info(a) for a in self.agents}

    # ------------------------------------------------------------------------------------------- stepping
    def _coerce(self, agent_id: str, action: Any) -> _Outcome:
        if action is None:
            return _Outcome(PrimitiveAction(kind="wait"))
        try:
            parsed = action if isinstance(action, PrimitiveAction) else PrimitiveAction.parse(str(action))
        except ValueError as exc:
            return _Outcome(PrimitiveAction(kind="wait"), ok=False, reason=f"could not read the action: {exc}")
        if parsed.kind not in MOVES:
            return _Outcome(PrimitiveAction(kind="wait"), ok=False,
                            reason=f"unknown action [{parsed.kind}]; actions: {', '.join(f'[{k}]' for k in MOVES)}")
        if parsed.kind == SEND_MESSAGE:
            text = (parsed.message or "").strip()
            limit = self.config.max_message_chars
            message = Message(sender=agent_id, text=text[:limit], step=self.time + 1, truncated=len(text) > limit)
            return _Outcome(parsed, message=message)
        return _Outcome(parsed)

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, OvercookedObservation], dict[str, float],
                                                     dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        outcomes = {a: self._coerce(a, actions.get(a)) for a in self.possible_agents}
        before = [held(p) for p in self.state.players]
        joint = tuple(MOVES[outcomes[a].action.kind] if outcomes[a].ok else Action.STAY for a in self.possible_agents)
        self.state, infos = self.mdp.get_state_transition(self.state, joint)
        self.time += 1
        points = infos["sparse_reward_by_agent"]
        served = infos["event_infos"]["soup_delivery"]
        for index, agent_id in enumerate(self.possible_agents):
            cook, outcome = self.cooks[agent_id], outcomes[agent_id]
            cook.points += points[index]
            cook.deliveries += int(served[index])
            outcome.served = bool(served[index])
            cook.invalid_actions += int(not outcome.ok)
            outcome.group = self._group(before[index], held(self.state.players[index]), served[index])
            if outcome.message is not None:
                cook.messages_sent += 1
                cook.characters_sent += len(outcome.message.text)
                for other in self.possible_agents:
                    if other != agent_id:
                        self.cooks[other].inbox.append(outcome.message)
        reward = float(sum(points))
        self.score += int(reward)
        self.last = outcomes
        truncated = self.time >= self.horizon
        live = list(self.agents)
        observations = {a: self._observe(a) for a in live}
        infos_out = {a: self._info(a) for a in live}
        if truncated:
            self.agents = []
        return (observations, dict.fromkeys(live, reward), dict.fromkeys(live, False),
                dict.fromkeys(live, truncated), infos_out)

    @staticmethod
    def _group(before: str | None, after: str | None, served: bool) -> AffordanceGroup | None:
        """What an interact did, in the protocol's words: a pickup fetches, serving or potting delivers."""
        if served or (before == "onion" and after is None):
            return AffordanceGroup.DELIVER
        if after is not None and after != before:
            return AffordanceGroup.FETCH
        return None

    # ------------------------------------------------------------------------------------------- reading
    def _observe(self, agent_id: str) -> OvercookedObservation:
        cook, outcome = self.cooks[agent_id], self.last.get(agent_id)
        messages, cook.inbox = cook.inbox, []
        core: dict[str, Any] = {"time": self.time, "horizon": self.horizon, "messages": messages,
                                "score": self.score, "deliveries": sum(c.deliveries for c in self.cooks.values())}
        if outcome is not None:
            core.update(last_action=outcome.action.text, last_action_ok=outcome.ok,
                        last_action_reason=outcome.reason, last_action_cost=1, last_action_group=outcome.group)
        return observe(self.mdp, self.state, agent_id, self.possible_agents, AGENT_NAMES, **core)

    def _info(self, agent_id: str) -> dict[str, Any]:
        index = self.possible_agents.index(agent_id)
        player, outcome = self.state.players[index], self.last.get(agent_id)
        deliveries = sum(c.deliveries for c in self.cooks.values())
        return {
            "step": self.time,
            "action": outcome.action.text if outcome else None,
            "ok": outcome.ok if outcome else True,
            "reason": outcome.reason if outcome else "",
            "cost": 1 if outcome else 0,
            "message": outcome.message.text if outcome and outcome.message else None,
            "message_truncated": bool(outcome and outcome.message and outcome.message.truncated),
            "room": "kitchen",
            "position": player.position,
            "facing": FACING[player.orientation],
            "holding": held(player),
            "kitchen": self._kitchen_now(),
            "score": self.score,
            "deliveries": deliveries,
            "served": bool(outcome and outcome.served),  # this cook delivered a soup this tick: who served
            "subgoals_done": deliveries,
            "success": self.score > 0,
        }

    def _kitchen_now(self) -> dict[str, list[list[Any]]]:
        """The kitchen's changing parts, compactly, for traces and their viewer: pots `[x, y, onions, cooking,
        ready, ticks_left]`, counters with something on them `[x, y, item]`, gates `[x, y, open, timer]`."""
        mdp, state = self.mdp, self.state
        return {"pots": [[*p.position, p.onions, p.cooking, p.ready, p.ticks_left] for p in pots(mdp, state)],
                "counters": [[*cell, HELD_WORDS[obj.name]] for cell, obj in sorted(state.objects.items())
                             if mdp.kitchen.terrain_at(cell) == "X" and obj.name in HELD_WORDS],
                "gates": [[*cell, state.gates.get(cell) is not None, state.gates.get(cell) or 0]
                          for cell in mdp.kitchen.places["g"]]}

    def layout(self) -> dict[str, Any]:
        """The kitchen for a trace's `episode_start` (the viewer draws it): terrain rows, LLM-Co's labelled places
        (`c0` → `[x, y]`), the players' start cells."""
        kitchen = self.mdp.kitchen
        return {"kind": "grid", "name": self.grid_layout.name, "terrain": list(self.grid_layout.terrain),
                "labels": {label: list(cell) for cell, label in kitchen.labels.items()},
                "starts": [list(cell) for cell in self.grid_layout.starts]}

    @property
    def episode_id(self) -> str:
        return self.episode.episode_id

    def agent_info(self, agent_id: str) -> OvercookedAgentInfo:
        """What a team member may know before the first tick: the kitchen, who is who, the rules' horizon."""
        return OvercookedAgentInfo(
            env=self.name, episode_id=self.grid_layout.name, layout=self.grid_layout.name,
            terrain=self.grid_layout.terrain, shared_counters=[list(cell) for cell in self.grid_layout.shared_counters],
            starts=[list(cell) for cell in self.grid_layout.starts], agent_id=agent_id,
            agent_name=AGENT_NAMES[agent_id],
            agent_index=self.possible_agents.index(agent_id), agents=list(self.possible_agents),
            agent_names=dict(AGENT_NAMES), goal_text=GOAL_TEXT, config=self.config, max_steps=self.horizon,
        )

    def metrics(self) -> OvercookedMetrics:
        cooks = self.cooks
        return OvercookedMetrics(
            success=self.score > 0, score=self.score, deliveries=sum(c.deliveries for c in cooks.values()),
            steps=self.time, ticks=self.time, invalid_actions=sum(c.invalid_actions for c in cooks.values()),
            communication_steps=sum(c.messages_sent for c in cooks.values()),
            characters_sent=sum(c.characters_sent for c in cooks.values()),
            per_agent={a: CookMetrics(deliveries=c.deliveries, points=c.points, invalid_actions=c.invalid_actions,
                                      communication_steps=c.messages_sent, characters_sent=c.characters_sent)
                       for a, c in cooks.items()})

    def render(self) -> str:
        """The kitchen as text: `1`/`2` cooks, `o`/`d`/`s` on counters (onion, dish, soup), pots as onion counts."""
        rows = [list(row) for row in self.grid_layout.terrain]
        marks = {"onion": "o", "dish": "d", "soup": "s", "tomato": "t"}
        for cell, obj in self.state.objects.items():
            x, y = cell
            rows[y][x] = str(len(obj.ingredients)) if rows[y][x] == "P" else marks.get(obj.name, "?")
        for cell in self.state.open_gates:
            rows[cell[1]][cell[0]] = "_"
        for index, player in enumerate(self.state.players):
            rows[player.position[1]][player.position[0]] = str(index + 1)
        head = f"{self.grid_layout.name} tick {self.time}/{self.horizon} score {self.score}"
        return "\n".join([head, *("".join(r) for r in rows)])

    def close(self) -> None:
        self.agents = []


def make_overcooked(**options: Any) -> OvercookedEnv:
    """Factory registered as `"overcooked"`: `make("overcooked", layout="cramped_room", horizon=400)`."""
    return OvercookedEnv(**options)
