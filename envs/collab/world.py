"""What the two games share as PettingZoo worlds: two players, text actions read leniently, messages, turns.

A turn is one step for both players. Actions are `[move] <room> (N)`, `[press] <button> (N)` (Capture),
`[fix] <generator> (N)` (Escape), `[stay]` or `[wait]`, and `[send_message] text` (the player stays; the partner
reads it next turn; LLM-Co's players never talk). An unreadable or impossible action is a stay, counted invalid
with the reason in the next observation; it never raises.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pettingzoo import ParallelEnv

from coopgraph.envs.collab.metrics import PlayerMetrics
from coopgraph.envs.protocol import SEND_MESSAGE, AgentInfo, Message, Observation, PrimitiveAction, TimeUnit
from coopgraph.envs.text_spaces import TextSpaces

AGENT_IDS: tuple[str, str] = ("alice", "bob")
AGENT_NAMES: dict[str, str] = {"alice": "Alice", "bob": "Bob"}
STAYS = frozenset({"stay", "wait", SEND_MESSAGE})


@dataclass
class Turn:
    """One player's action this turn as the world read it."""

    action: PrimitiveAction
    ok: bool = True
    reason: str = ""
    message: Message | None = None

    @property
    def kind(self) -> str:
        return self.action.kind if self.ok else "stay"


@dataclass
class Player:
    """What the world counts for one player, and its unread messages."""

    counts: PlayerMetrics = field(default_factory=PlayerMetrics)
    inbox: list[Message] = field(default_factory=list)


class CollabAgentInfo(AgentInfo):
    """The part of a Collab player's start-of-episode knowledge both games share; `game` says which game."""

    agent_index: int
    agent_names: dict[str, str]
    max_message_chars: int
    game: Literal["capture", "escape"]
    rooms: dict[int, list[int]]


class CollabWorld(TextSpaces, ParallelEnv):
    """The shared machinery; a game supplies its action kinds, `_begin`, `_play`, `_observe` and `_facts`."""

    metadata = {"name": "collab_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    time_unit: ClassVar[TimeUnit] = "turns"
    default_episode: ClassVar[str] = "test/0"
    #: The primitive kinds beyond staying and messages, with the id each must carry (a room number).
    ACTION_KINDS: tuple[str, ...] = ()

    def __init__(self, *, num_agents: int, max_message_chars: int, name: str, render_mode: str | None) -> None:
        if num_agents != len(AGENT_IDS):
            raise ValueError(f"{name} is played by {len(AGENT_IDS)} players, got num_agents={num_agents}")
        self.name, self.render_mode = name, render_mode
        self.max_message_chars = max_message_chars
        self.possible_agents = list(AGENT_IDS)
        self.agents: list[str] = []
        self.set_text_spaces(max_message_chars)
        self.time = 0
        self.players = {a: Player() for a in self.possible_agents}
        self.last: dict[str, Turn] = {}
        self.over = False

    @property
    @abstractmethod
    def horizon(self) -> int: ...

    @abstractmethod
    def _begin(self, seed: int) -> None:
        """Set up the episode's start."""

    @abstractmethod
    def _play(self, turns: dict[str, Turn]) -> bool:
        """Play one turn with these actions; True when the game is over (won or lost)."""

    @abstractmethod
    def _observe(self, agent_id: str, core: dict[str, Any]) -> Observation: ...

    @abstractmethod
    def _facts(self, agent_id: str) -> dict[str, Any]:
        """The game's part of a step's info (positions and the like), for traces."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Start afresh; `options={"episode": name}` switches episode."""
        if options and options.get("episode"):
            self._load(str(options["episode"]))
        self.time, self.over, self.last = 0, False, {}
        self.players = {a: Player() for a in self.possible_agents}
        self._begin(seed or 0)
        self.agents = list(self.possible_agents)
        return {a: self._observation(a) for a in self.agents}, {a: self._info(a) for a in self.agents}

    @abstractmethod
    def _load(self, episode: str) -> None: ...

    def _read(self, agent_id: str, action: Any) -> Turn:
        if action is None:
            return Turn(PrimitiveAction(kind="stay"))
        try:
            parsed = action if isinstance(action, PrimitiveAction) else PrimitiveAction.parse(str(action))
        except ValueError as exc:
            return Turn(PrimitiveAction(kind="stay"), ok=False, reason=f"could not read the action: {exc}")
        kinds = sorted(STAYS | set(self.ACTION_KINDS))
        if parsed.kind not in kinds:
            return Turn(PrimitiveAction(kind="stay"), ok=False,
                        reason=f"unknown action [{parsed.kind}]; actions: {', '.join(f'[{k}]' for k in kinds)}")
        if parsed.kind in self.ACTION_KINDS and parsed.target_id is None:
            return Turn(parsed, ok=False, reason=f"[{parsed.kind}] needs a room: [{parsed.kind}] <room> (N)")
        if parsed.kind == SEND_MESSAGE:
            text, limit = (parsed.message or "").strip(), self.max_message_chars
            return Turn(parsed, message=Message(sender=agent_id, text=text[:limit], step=self.time + 1,
                                                truncated=len(text) > limit))
        return Turn(parsed)

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Observation], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        turns = {a: self._read(a, actions.get(a)) for a in self.possible_agents}
        self.over = self._play(turns)  # marks impossible actions invalid in `turns`
        self.time += 1
        for agent_id, turn in turns.items():
            counts = self.players[agent_id].counts
            counts.invalid_actions += int(not turn.ok)
            if turn.message is not None:
                counts.communication_steps += 1
                counts.characters_sent += len(turn.message.text)
                for other in self.possible_agents:
                    if other != agent_id:
                        self.players[other].inbox.append(turn.message)
        self.last = turns
        reward = float(self._reward())
        truncated = not self.over and self.time >= self.horizon
        live = list(self.agents)
        observations = {a: self._observation(a) for a in live}
        infos = {a: self._info(a) for a in live}
        if self.over or truncated:
            self.agents = []
        return (observations, dict.fromkeys(live, reward), dict.fromkeys(live, self.over),
                dict.fromkeys(live, truncated), infos)

    def _reward(self) -> float:
        """1 on the turn the game is won, -1 on a loss, else 0."""
        return 0.0

    def _observation(self, agent_id: str) -> Observation:
        player, turn = self.players[agent_id], self.last.get(agent_id)
        messages, player.inbox = player.inbox, []
        core: dict[str, Any] = {"agent_id": agent_id, "agent_name": AGENT_NAMES[agent_id], "time": self.time,
                                "horizon": self.horizon, "messages": messages}
        if turn is not None:
            core.update(last_action=turn.action.text, last_action_ok=turn.ok, last_action_reason=turn.reason,
                        last_action_cost=1)
        return self._observe(agent_id, core)

    def _info(self, agent_id: str) -> dict[str, Any]:
        turn = self.last.get(agent_id)
        return {"step": self.time, "action": turn.action.text if turn else None, "ok": turn.ok if turn else True,
                "reason": turn.reason if turn else "", "cost": 1 if turn else 0,
                "message": turn.message.text if turn and turn.message else None,
                "message_truncated": bool(turn and turn.message and turn.message.truncated),
                **self._facts(agent_id)}

    def partner(self, agent_id: str) -> str:
        return next(a for a in self.possible_agents if a != agent_id)

    @property
    def episode_id(self) -> str:
        return self.episode.episode_id

    def layout(self) -> dict[str, Any] | None:
        """None: the trace viewer draws no map of the Collab games."""
        return None

    def base_info(self, agent_id: str) -> dict[str, Any]:
        """The fields of `agent_info` both games share."""
        return {"env": self.name, "agent_id": agent_id, "agent_name": AGENT_NAMES[agent_id],
                "agent_index": self.possible_agents.index(agent_id), "agents": list(self.possible_agents),
                "agent_names": dict(AGENT_NAMES), "max_steps": self.horizon,
                "max_message_chars": self.max_message_chars}

    def close(self) -> None:
        self.agents = []
