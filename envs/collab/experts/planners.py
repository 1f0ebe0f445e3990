"""Scripted partners for both games as team members: `collab-planner` and `collab-random` (`--team NAME,NAME`).

Each plays through the game's own kit, as an LLM-Co agent does, choosing one of the listed actions each turn.
`collab-planner` is the planner baseline: in Capture, the shortest capture by search against the known thief
policy (`capture_plan.py`); in Escape, the rule-based survivor (`escape_plan.py`). `collab-random` picks any listed
action, uniformly (seeded). The game is read from the agent info's type, so one name serves both games.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs.collab import capture_plan, escape_plan
from coopgraph.envs.collab.affordances import CollabAffordance
from coopgraph.envs.collab.belief import CaptureBelief, EscapeBelief
from coopgraph.envs.collab.capture import CaptureMove, CaptureState
from coopgraph.envs.collab.capture_env import CaptureAgentInfo
from coopgraph.envs.collab.escape import EscapeMove, EscapeState, KillerPlan
from coopgraph.envs.collab.maps import Adjacency
from coopgraph.envs.collab.world import CollabAgentInfo
from coopgraph.envs.kit_member import KitMember
from coopgraph.envs.protocol import AgentInfo


def capture_state(belief: CaptureBelief) -> CaptureState:
    """The rules' state as this player sees it (players in team order)."""
    rooms = (belief.room, belief.partner_room) if belief.agent_index == 0 else (belief.partner_room, belief.room)
    return CaptureState(rooms, belief.thief_room, tuple(sorted((d.rooms, d.open) for d in belief.doors)))


def escape_state(belief: EscapeBelief) -> tuple[EscapeState, KillerPlan]:
    """The rules' state and what is known of the killer's plan (a chase's room, or none while it wanders)."""
    me = belief.agent_index
    rooms = (belief.room, belief.partner_room) if me == 0 else (belief.partner_room, belief.room)
    fixing = (belief.fixed_last_turn, belief.partner_fixed_last_turn)
    state = EscapeState(rooms, belief.killer_room, tuple((g.room, g.fixes) for g in belief.generators),
                        fixing if me == 0 else (fixing[1], fixing[0]))
    if belief.killer_chasing is None:
        return state, KillerPlan(belief.killer_room, None)
    chased = me if belief.killer_chasing == belief.agent_id else 1 - me
    return state, KillerPlan(rooms[chased], chased)


def matching(options: list[CollabAffordance], kind: str, room: int | None) -> CollabAffordance | None:
    """The listed action of this kind and room (staying and waiting match each other)."""
    idle = {"stay", "wait"}
    return next((o for o in options if (o.kind == kind or {o.kind, kind} <= idle)
                 and (o.room == room or o.kind in idle)), None)


class KitPlayer(KitMember):
    """A player that chooses among the kit's listed actions with `choose`, one per turn."""

    name = "collab-player"

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        assert isinstance(env_info, CollabAgentInfo), f"{self.name} plays the Collab games, not {env_info.env}"
        self.rooms: Adjacency = {int(r): tuple(links) for r, links in env_info.rooms.items()}
        self.distance = env_info.distance if isinstance(env_info, CaptureAgentInfo) else "number"

    def options(self, belief: Any) -> list[Any]:
        return [o for o in super().options(belief) if isinstance(o, CollabAffordance)]


class RandomPlayer(KitPlayer):
    """Any listed action, uniformly (seeded)."""

    name = "collab-random"

    def choose(self, belief: Any, options: list[CollabAffordance]) -> CollabAffordance:
        return self.rng.choice(options)


class PlannerPlayer(KitPlayer):
    """The planner baseline of each game (see the module's docstring)."""

    name = "collab-planner"

    def choose(self, belief: Any, options: list[CollabAffordance]) -> CollabAffordance:
        move: CaptureMove | EscapeMove
        if isinstance(belief, CaptureBelief):
            move = capture_plan.best_move(capture_state(belief), belief.agent_index, self.distance)  # type: ignore[arg-type]
            if move.kind == "press":
                move = CaptureMove("press", belief.room)
        else:
            state, plan = escape_state(belief)
            move = escape_plan.best_move(state, self.rooms, belief.agent_index, plan)
        return matching(options, move.kind, move.room) or options[0]
