"""Collab Escape as a PettingZoo ParallelEnv: two players repair two generators and reach the exit, hunted.

`make("collab-escape", episode="test/0", graph="coded", max_turns=None)`. Rules: `escape.py`. The killer's
decision for the coming turn is made when the players are shown the state (it moves first in the reference), from
a generator seeded by the episode and the run's seed. The game ends in a loss (reward -1) or a win (+1); with no
`max_turns` (the reference has no cap) a safety stop ends it after `SAFETY_TURNS`.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.collab import escape
from coopgraph.envs.collab.episodes import ESCAPE_START, escape_episode
from coopgraph.envs.collab.escape import EscapeMove, EscapeState, KillerPlan, Outcome
from coopgraph.envs.collab.maps import ESCAPE_GRAPHS, EXIT_ROOM, GENERATOR_ROOMS, escape_graph
from coopgraph.envs.collab.metrics import CollabMetrics
from coopgraph.envs.collab.observation import EscapeObservation, GeneratorView
from coopgraph.envs.collab.world import AGENT_IDS, CollabAgentInfo, CollabWorld, Turn

GOAL_TEXT = (f"Repair the generators in rooms {GENERATOR_ROOMS[0]} and {GENERATOR_ROOMS[1]}, then one of us "
             f"reaches the exit in room {EXIT_ROOM}; never share a room with the killer.")
#: The turn at which a game without `max_turns` is stopped anyway (counted as neither escaped nor caught).
SAFETY_TURNS = 1000


class EscapeConfig(BaseModel):
    """The episode's settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode: str = "test/0"
    graph: Literal["coded", "described"] = Field(default="coded", description="the room links: as the reference "
                                                 "code has them (directed in two places) or as its prompt "
                                                 "describes them")
    max_turns: int | None = Field(default=None, ge=1, description="a turn cap (the reference has none)")
    max_message_chars: int = Field(default=500, ge=1)

    @property
    def max_steps(self) -> int:
        return self.max_turns or SAFETY_TURNS


class EscapeAgentInfo(CollabAgentInfo):
    """What a Collab Escape player knows before the first turn: the map as this episode links it, generators, exit."""

    graph: str
    generators: list[int]
    exit: int
    config: EscapeConfig


class EscapeEnv(CollabWorld):
    """Two players, a killer, ten rooms, two generators and an exit."""

    metadata = {"name": "collab_escape_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    ACTION_KINDS = ("move", "fix")

    def __init__(self, episode: str = "test/0", *, graph: str = "coded", max_turns: int | None = None,
                 max_steps: int | None = None, num_agents: int = 2, max_message_chars: int = 500,
                 name: str = "collab-escape", render_mode: str | None = None) -> None:
        escape_graph(graph)  # names the known graphs
        if max_turns is not None and max_steps is not None and max_turns != max_steps:
            raise ValueError(f"max_turns={max_turns} and max_steps={max_steps} disagree: they name the same thing")
        self.config = EscapeConfig(episode=episode, graph=graph,  # type: ignore[arg-type]
                                   max_turns=max_turns or max_steps, max_message_chars=max_message_chars)
        super().__init__(num_agents=num_agents, max_message_chars=max_message_chars, name=name,
                         render_mode=render_mode)
        self.graph = ESCAPE_GRAPHS[graph]
        self._load(episode)
        self._begin(0)

    def _load(self, episode: str) -> None:
        self.episode = escape_episode(episode)
        self.config = self.config.model_copy(update={"episode": episode})

    @property
    def horizon(self) -> int:
        return self.config.max_steps

    def _begin(self, seed: int) -> None:
        alice, bob, killer = ESCAPE_START
        self.rng = random.Random(f"collab-escape/{self.episode.index}/{seed}")
        self.state = EscapeState(players=(alice, bob), killer=killer)
        self.outcome: Outcome = "playing"
        self.plan: KillerPlan = escape.killer_plan(self.state, self.graph, self.rng)

    def _move(self, index: int, turn: Turn) -> EscapeMove:
        kind, room = turn.action.kind, turn.action.target_id
        if kind not in ("move", "fix"):
            return EscapeMove()
        move = EscapeMove(kind, room)  # type: ignore[arg-type]
        if not escape.valid(self.state, self.graph, index, move):
            here = self.state.players[index]
            turn.ok = False
            turn.reason = (f"room {room} is not linked from room {here}" if kind == "move" else
                           f"no generator to fix in room {here}" if here not in GENERATOR_ROOMS or room != here
                           else f"the generator in room {here} is repaired already")
            return EscapeMove()
        return move

    def _play(self, turns: dict[str, Turn]) -> bool:
        moves = tuple(self._move(i, turns[a]) for i, a in enumerate(AGENT_IDS))
        for agent_id, move in zip(AGENT_IDS, moves, strict=True):
            self.players[agent_id].counts.fixes += int(move.kind == "fix")
        self.state, self.outcome = escape.step(self.state, self.graph, self.plan, moves)  # type: ignore[arg-type]
        if self.outcome == "playing":
            self.plan = escape.killer_plan(self.state, self.graph, self.rng)
        return self.outcome != "playing"

    def _reward(self) -> float:
        return {"escaped": 1.0, "caught": -1.0}.get(self.outcome, 0.0)

    def generators(self) -> list[GeneratorView]:
        return [GeneratorView(room=room, fixes=fixes, repaired=self.state.repaired(room))
                for room, fixes in self.state.fixes]

    def _observe(self, agent_id: str, core: dict[str, Any]) -> EscapeObservation:
        index = self.possible_agents.index(agent_id)
        chasing = None if self.plan.chasing is None else AGENT_IDS[self.plan.chasing]
        return EscapeObservation(**core, goal_text=GOAL_TEXT, room=self.state.players[index],
                                 partner_room=self.state.players[1 - index], killer_room=self.state.killer,
                                 killer_chasing=chasing, killer_news=escape.killer_words(self.state, self.plan),
                                 generators=self.generators(), fixed_last_turn=self.state.fixing[index],
                                 partner_fixed_last_turn=self.state.fixing[1 - index],
                                 exit_open=self.state.exit_open, outcome=self.outcome)

    def _facts(self, agent_id: str) -> dict[str, Any]:
        index = self.possible_agents.index(agent_id)
        repaired = sum(self.state.repaired(room) for room in GENERATOR_ROOMS)
        return {"room": self.state.players[index], "killer": self.state.killer,
                "generators": {str(room): fixes for room, fixes in self.state.fixes}, "outcome": self.outcome,
                "success": self.outcome == "escaped", "subgoals_done": repaired}

    def agent_info(self, agent_id: str) -> EscapeAgentInfo:
        """What a player knows before the first turn: the map (as this episode links it), generators, exit."""
        return EscapeAgentInfo(**self.base_info(agent_id), game="escape", episode_id=self.episode.episode_id,
                               rooms={room: list(links) for room, links in self.graph.items()}, graph=self.config.graph,
                               generators=list(GENERATOR_ROOMS), exit=EXIT_ROOM, goal_text=GOAL_TEXT,
                               config=self.config)

    def metrics(self) -> CollabMetrics:
        counts = {a: p.counts for a, p in self.players.items()}
        return CollabMetrics(success=self.outcome == "escaped", steps=self.time, turns=self.time,
                             escaped=self.outcome == "escaped", caught=self.outcome == "caught",
                             generators_repaired=sum(self.state.repaired(room) for room in GENERATOR_ROOMS),
                             invalid_actions=sum(c.invalid_actions for c in counts.values()),
                             communication_steps=sum(c.communication_steps for c in counts.values()),
                             characters_sent=sum(c.characters_sent for c in counts.values()), per_agent=counts)

    def render(self) -> str:
        alice, bob = self.state.players
        gens = ", ".join(f"generator {room}: {fixes}/2" for room, fixes in self.state.fixes)
        return (f"{self.episode.episode_id} turn {self.time}/{self.horizon}: Alice in {alice}, Bob in {bob}, "
                f"killer in {self.state.killer}; {gens}; {self.outcome}")


def make_escape(**options: Any) -> EscapeEnv:
    """Factory registered as `"collab-escape"`: `make("collab-escape", episode="test/0", max_turns=50)`."""
    return EscapeEnv(**options)
