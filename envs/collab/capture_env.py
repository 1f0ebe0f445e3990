"""Collab Capture as a PettingZoo ParallelEnv: two players corner a thief in nine rooms within 30 turns.

`make("collab-capture", episode="test/0", distance="number", horizon=30)`. Rules: `capture.py`; starts:
`episodes.py`. The game ends at the capture (reward 1) or truncates at the horizon.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.collab import capture
from coopgraph.envs.collab.capture import DISTANCES, CaptureMove, CaptureState
from coopgraph.envs.collab.episodes import capture_episode
from coopgraph.envs.collab.maps import CAPTURE_BUTTONS, CAPTURE_ROOMS
from coopgraph.envs.collab.metrics import CollabMetrics
from coopgraph.envs.collab.observation import CaptureObservation, DoorView
from coopgraph.envs.collab.world import AGENT_IDS, CollabAgentInfo, CollabWorld, Turn

GOAL_TEXT = "Catch the thief together: end a turn in its room, or swap rooms with it."


class CaptureConfig(BaseModel):
    """The episode's settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode: str = "test/0"
    distance: Literal["number", "graph"] = Field(default="number", description="how the thief measures how far a "
                                                 "room is from a player: by room number (the reference code) or in "
                                                 "moves (what its prompt implies)")
    max_steps: int = Field(default=30, ge=1, description="the horizon in turns (the reference plays 30)")
    max_message_chars: int = Field(default=500, ge=1)


class CaptureAgentInfo(CollabAgentInfo):
    """What a Collab Capture player knows before the first turn: the map, the buttons, the rules' options."""

    buttons: dict[str, int]
    distance: str
    config: CaptureConfig


class CaptureEnv(CollabWorld):
    """Two players, one thief, nine rooms, two doors with buttons."""

    metadata = {"name": "collab_capture_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    ACTION_KINDS = ("move", "press")

    def __init__(self, episode: str = "test/0", *, distance: str = "number", horizon: int | None = None,
                 max_steps: int | None = None, num_agents: int = 2, max_message_chars: int = 500,
                 name: str = "collab-capture", render_mode: str | None = None) -> None:
        if distance not in DISTANCES:
            raise ValueError(f"distance={distance!r} is not known; distances: {', '.join(DISTANCES)}")
        if horizon is not None and max_steps is not None and horizon != max_steps:
            raise ValueError(f"horizon={horizon} and max_steps={max_steps} disagree: they name the same thing")
        self.config = CaptureConfig(episode=episode, distance=distance,  # type: ignore[arg-type]
                                    max_steps=horizon or max_steps or 30, max_message_chars=max_message_chars)
        super().__init__(num_agents=num_agents, max_message_chars=max_message_chars, name=name,
                         render_mode=render_mode)
        self._load(episode)
        self._begin(0)

    def _load(self, episode: str) -> None:
        self.episode, self.start = capture_episode(episode)
        self.config = self.config.model_copy(update={"episode": episode})

    @property
    def horizon(self) -> int:
        return self.config.max_steps

    def _begin(self, seed: int) -> None:
        self.state: CaptureState = self.start
        self.caught_at: int | None = None

    def _move(self, index: int, turn: Turn) -> CaptureMove:
        kind = turn.action.kind
        if kind == "move":
            move = CaptureMove("move", turn.action.target_id)
        elif kind == "press":
            move = CaptureMove("press")
            if turn.action.target_id != self.state.players[index]:
                turn.ok, turn.reason = False, f"the button is pressed in the room one stands in " \
                                              f"(room {self.state.players[index]})"
                return CaptureMove()
        else:
            return CaptureMove()
        if not capture.valid(self.state, index, move):
            here = self.state.players[index]
            turn.ok = False
            turn.reason = (f"room {move.room} cannot be reached from room {here} now" if kind == "move"
                           else f"room {here} has no button")
            return CaptureMove()
        return move

    def _play(self, turns: dict[str, Turn]) -> bool:
        moves = tuple(self._move(i, turns[a]) for i, a in enumerate(AGENT_IDS))
        for agent_id, move in zip(AGENT_IDS, moves, strict=True):
            self.players[agent_id].counts.presses += int(move.kind == "press")
        self.state, caught = capture.step(self.state, moves, self.config.distance)  # type: ignore[arg-type]
        if caught:
            self.caught_at = self.time + 1
        return caught

    def _reward(self) -> float:
        return 1.0 if self.over else 0.0

    def doors(self) -> list[DoorView]:
        return [DoorView(rooms=door, open=is_open, button=CAPTURE_BUTTONS[door]) for door, is_open in self.state.doors]

    def _observe(self, agent_id: str, core: dict[str, Any]) -> CaptureObservation:
        index = self.possible_agents.index(agent_id)
        return CaptureObservation(**core, goal_text=GOAL_TEXT, room=self.state.players[index],
                                  partner_room=self.state.players[1 - index], thief_room=self.state.thief,
                                  doors=self.doors(), caught=self.caught_at is not None)

    def _facts(self, agent_id: str) -> dict[str, Any]:
        index = self.possible_agents.index(agent_id)
        return {"room": self.state.players[index], "thief": self.state.thief,
                "doors": {f"{a}-{b}": is_open for (a, b), is_open in self.state.doors},
                "caught": self.caught_at is not None, "success": self.caught_at is not None,
                "subgoals_done": int(self.caught_at is not None)}

    def agent_info(self, agent_id: str) -> CaptureAgentInfo:
        """What a player knows before the first turn: the map, the buttons, the rules' options, who is who."""
        return CaptureAgentInfo(**self.base_info(agent_id), game="capture", episode_id=self.episode.episode_id,
                                rooms={room: list(links) for room, links in CAPTURE_ROOMS.items()},
                                buttons={f"{a}-{b}": room for (a, b), room in CAPTURE_BUTTONS.items()},
                                distance=self.config.distance, goal_text=GOAL_TEXT, config=self.config)

    def metrics(self) -> CollabMetrics:
        caught = self.caught_at is not None
        counts = {a: p.counts for a, p in self.players.items()}
        return CollabMetrics(success=caught, steps=self.time, turns=self.time,
                             turns_to_capture=self.caught_at if caught else self.horizon,
                             invalid_actions=sum(c.invalid_actions for c in counts.values()),
                             communication_steps=sum(c.communication_steps for c in counts.values()),
                             characters_sent=sum(c.characters_sent for c in counts.values()), per_agent=counts)

    def render(self) -> str:
        doors = ", ".join(f"door {a}-{b} {'open' if o else 'closed'}" for (a, b), o in self.state.doors)
        alice, bob = self.state.players
        return (f"{self.episode.episode_id} turn {self.time}/{self.horizon}: Alice in {alice}, Bob in {bob}, "
                f"thief in {self.state.thief}; {doors}" + (" — caught" if self.caught_at else ""))


def make_capture(**options: Any) -> CaptureEnv:
    """Factory registered as `"collab-capture"`: `make("collab-capture", episode="test/0")`."""
    return CaptureEnv(**options)

