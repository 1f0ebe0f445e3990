"""What a person is shown when it is their turn, and what they may answer.

A `Turn` is built only from the agent's own observation and its kit's belief (never the world's truth): where it is,
what it sees and holds, the goal and believed progress, the messages heard, and the kit's affordances as numbered
options. An `Answer` names one option, one of the world's direct moves (Overcooked's keys), or a message.
"""

from __future__ import annotations

import secrets
from typing import Any

from pydantic import BaseModel, Field

from coopgraph.envs.protocol import Affordance, HouseObservation, Message, Observation
from coopgraph.play.known_map import known_map

#: Direct moves a world lets a person make with keys, by world: key name (as a browser reports it) -> primitive
#: action kind. Worlds not listed are played through their affordances only.
MOVES: dict[str, dict[str, str]] = {
    "overcooked": {"ArrowUp": "north", "ArrowDown": "south", "ArrowLeft": "west", "ArrowRight": "east",
                   " ": "interact", "s": "stay"},
}


class Turn(BaseModel):
    """One decision the person owes: the agent's view, the options, and a token that only one answer can use."""

    token: str = Field(default_factory=lambda: secrets.token_urlsafe(12))
    env: str
    agent: str
    agent_name: str
    step: int
    horizon: int
    goal: str
    view: list[str] = Field(description="the agent's view in lines: progress, room, what it sees and holds")
    last_action: str | None = None
    last_action_ok: bool = True
    last_action_reason: str = ""
    options: list[str]
    moves: dict[str, str] = Field(default_factory=dict, description="key -> primitive action kind")
    message_limit: int
    messages: list[Message] = Field(default_factory=list, description="every message heard so far, in order")
    frame: dict[str, Any] | None = Field(default=None, description="grid worlds: the cells' contents and the "
                                         "cooks, as the trace viewer's grid drawing reads a frame")
    known_map: dict[str, Any] | None = Field(default=None, description="house worlds: where the agent is, the "
                                             "rooms it has seen, the objects its belief places, partners in "
                                             "sight (see `known_map`)")


class Answer(BaseModel):
    """The person's answer: `choice` (1-based option), `move` (a primitive kind from the turn's moves) or
    `message` (text, cut to the world's limit). Exactly one is set."""

    choice: int | None = None
    move: str | None = None
    message: str | None = None
    response_s: float = 0.0

    def problem(self, turn: Turn) -> str | None:
        """Why this answer does not fit `turn` (None when it does)."""
        given = [x for x in (self.choice, self.move, self.message) if x is not None]
        if len(given) != 1:
            return "answer with exactly one of: an option number, a move, a message"
        if self.choice is not None and not 1 <= self.choice <= len(turn.options):
            return f"option {self.choice} is not listed (1-{len(turn.options)})"
        if self.move is not None and self.move not in turn.moves.values():
            return f"move {self.move!r} is not one of {', '.join(turn.moves.values()) or 'none in this world'}"
        if self.message is not None and not self.message.strip():
            return "an empty message"
        return None


def view_lines(obs: Observation, belief: Any) -> list[str]:
    """The agent's view as lines: its believed progress, and in a house its room, held and visible things."""
    lines = [line for line in str(belief.progress_text()).splitlines() if line.strip()]
    if isinstance(obs, HouseObservation):
        lines.append(f"You are in <{obs.room}> ({obs.room_id}).")
        lines.append("You hold: " + (", ".join(o.label for o in obs.holding) or "nothing") + ".")
        if obs.visible_objects:
            lines.append("You see: " + ", ".join(o.label for o in obs.visible_objects) + ".")
        for partner in obs.partners:
            held = ", ".join(o.label for o in partner.holding) or "nothing"
            lines.append(f"You see {partner.name} in <{partner.room}> ({partner.room_id}), holding {held}.")
    return lines


def grid_frame(obs: Observation) -> dict[str, Any] | None:
    """For an observation of a grid world (one with `grid`, such as Overcooked, where every cook sees the whole
    kitchen), the frame the grid drawing reads: pots, counters, gates, and each cook's cell, facing and load."""
    data = obs.model_dump(mode="json")
    if "grid" not in data or "position" not in data:
        return None
    cooks = [{"agent_id": obs.agent_id, **data}, *data.get("partners", [])]
    pots = [[*p["position"], p.get("onions", 0), p.get("cooking", False), p.get("ready", False),
             p.get("ticks_left", 0)] for p in data.get("pots", [])]
    counters = [[*c["position"], c.get("item") or c.get("holding")] for c in data.get("counters", [])
                if isinstance(c, dict) and "position" in c]
    gates = [[*g["position"], g.get("open", False), g.get("ticks_left", g.get("timer", 0))]
             for g in data.get("gates", []) if isinstance(g, dict) and "position" in g]
    return {"kitchen": {"pots": pots, "counters": counters, "gates": gates},
            "agents": {c["agent_id"]: {"holding": c.get("holding"), "facing": c.get("facing")} for c in cooks},
            "positions": {c["agent_id"]: c.get("position") for c in cooks}}


def make_turn(env: str, obs: Observation, belief: Any, options: list[Affordance], heard: list[Message]) -> Turn:
    return Turn(env=env, agent=obs.agent_id, agent_name=obs.agent_name, step=obs.time, horizon=obs.horizon,
                goal=obs.goal_text, view=view_lines(obs, belief), last_action=obs.last_action,
                last_action_ok=obs.last_action_ok, last_action_reason=obs.last_action_reason,
                options=[o.text for o in options], moves=MOVES.get(env, {}), message_limit=belief.message_limit,
                messages=list(heard), frame=grid_frame(obs), known_map=known_map(obs, belief))
