"""REVECA's view of memory for its prompts: relevant things first, irrelevant ones never, partners estimated.

`memory.retrieve` gathers the generic facts (goal, dialogue, previous actions); `memory.focus` (in memory.py)
adds, with the lines made here, what REVECA's planner reads instead of a full dump of the belief: the agent
itself, the objects ranked by relevance (then by distance), the partners with their estimated whereabouts, and
the communication history filtered by relevance (no "none" messages) rather than cut to the latest few.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import Belief, Goals, Objects, Rooms, Spatial
from coopgraph.nodes.families.relevance import object_level, sighting_line
from coopgraph.nodes.reveca_notes import RANK, RevecaNotes, message_key

if TYPE_CHECKING:
    from coopgraph.memory.agent_memory import AgentMemory


class FocusParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    use_relevance: bool = Field(default=True, description="order and filter by relevance; off: list everything")
    min_level: Literal["low", "medium", "strong"] = Field(default="low", description="lowest level shown")
    max_objects: int = Field(default=12, ge=0, le=500, description="objects listed at most; 0: no limit")
    spatial: bool = Field(default=True, description="show distances and sort by them")
    partner_info: bool = Field(default=True, description="describe partners (seen or estimated)")
    max_messages: int = Field(default=0, ge=0, le=1000, description="dialogue lines shown at most, the most "
                              "relevant first; 0: every line kept in memory that passes `min_level`")


def self_text(belief: Belief) -> str:
    """Where I am, what I hold and how far the goal is, in one line."""
    known, place, task = cast(Objects, belief), cast(Rooms, belief), cast(Goals, belief)
    objects = known.objects
    held = ", ".join(objects[i].label for i in known.holding if i in objects) or "nothing"
    room, rooms = place.room_id, place.rooms
    where = f"I am in the {rooms[room].label}" if room in rooms else "I am somewhere unknown"
    done = ", ".join(f"{task.satisfied(p)}/{p.count} {p.object_name}" for p in task.goal)
    return f"{where}, holding {held}. Done so far: {done or 'nothing to count'}."


def known_lines(belief: Belief, notes: RevecaNotes, params: FocusParams) -> list[str]:
    """Objects worth mentioning, most relevant first (then nearest), each with its level and distance."""
    known, here = cast(Objects, belief), cast(Spatial, belief)
    held = set(known.holding)
    rows = []
    for obj in known.objects.values():
        if obj.id in held or obj.held_by is not None or obj.room_id is None:
            continue  # carried things are in my line or the partner's; a thing whose place is unknown helps nobody
        level = notes.relevance.get(obj.id) or object_level(obj, belief)
        if params.use_relevance and RANK[level] < RANK[params.min_level]:
            continue
        metres = (here.walk_distance(here.position, cast(Rooms, belief).room_id, obj.position, obj.room_id)
                  if params.spatial else math.inf)
        rank = -RANK[level] if params.use_relevance else 0
        rows.append(((rank, metres if params.spatial else 0.0, obj.id), obj, level, metres))
    rows.sort(key=lambda row: row[0])
    if params.max_objects:
        rows = rows[: params.max_objects]
    lines = []
    for _, obj, level, metres in rows:
        line = sighting_line(obj, belief)
        extras = [level] if params.use_relevance else []
        if params.spatial and math.isfinite(metres):
            extras.append(f"{metres:.0f} m")
        lines.append(f"{line} [{', '.join(extras)}]" if extras else line)
    return lines


def dialogue_lines(memory: AgentMemory, notes: RevecaNotes, params: FocusParams) -> list[str]:
    """The communication history as the planner reads it: every line kept (the spec's `messages_kept` holds the
    whole episode in the faithful wiring, not a recent-K window), those below `min_level` left out, and with
    `max_messages` the most relevant ones (the latest among equals), in the order they were said. Lines this agent
    sent are not rated and count as "low"."""
    rows = []
    for order, said in enumerate(memory.episodic.messages):
        level = notes.message_relevance.get(message_key(said.sender, said.step, said.text), "low")
        if params.use_relevance and RANK.get(level, 1) < RANK[params.min_level]:
            continue
        rows.append((order, RANK.get(level, 1) if params.use_relevance else 0, said.render()))
    if params.max_messages:
        rows = sorted(sorted(rows, key=lambda r: (r[1], r[0]), reverse=True)[: params.max_messages])
    return [text for _, _, text in rows]
