"""Progress detection (CaPo section 4.3): the events that make a meta-plan stale.

Two kinds count as progress: a goal object becoming known for the first time, and a subgoal count going up.
Entering a room, opening a container or walking does not: re-planning costs messages, and those change
nothing the meta-plan assigns. The node reads the belief through duck typing (`goal`, `satisfied(p)`,
`goal_objects()`, `objects`, `room_name(id)`), so it imports no environment; a belief without those
methods simply never reports progress.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.registry import node

_LABEL = re.compile(r"<(?P<name>\w+)> \((?P<id>\d+)\)")


class DetectParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    discoveries: bool = Field(default=True, description="a goal object seen (or told of) for the first time")
    subgoals: bool = Field(default=True, description="a subgoal's count going up")


@dataclass
class ProgressLog:
    """What was already known, so only news is reported; the first step sets the baseline."""

    found: set[int] = field(default_factory=set)
    done: dict[str, int] = field(default_factory=dict)
    started: bool = False


def _where(belief: Any, obj: Any) -> str:
    objects = getattr(belief, "objects", {})
    for relation, holder_id in (("inside", getattr(obj, "inside", None)), ("on", getattr(obj, "on", None))):
        holder = objects.get(holder_id) if holder_id is not None else None
        if holder is not None:
            return f" {relation} {holder.label}"
    room_id = getattr(obj, "room_id", None)
    room_name = getattr(belief, "room_name", None)
    return f" in the {room_name(room_id)}" if callable(room_name) and room_id is not None else ""


def _my_put(observation: Any, predicate: Any) -> str | None:
    """The object label when my own last action completed this subgoal (a successful put there), else None."""
    last = getattr(observation, "last_action", None) or ""
    if not (getattr(observation, "last_action_ok", False) and last.startswith("[put]")):
        return None
    match = _LABEL.search(last)
    if match is None or match["name"] != predicate.object_name or f"({predicate.target_id})" not in last:
        return None
    return match.group(0)


def detect(belief: Any, observation: Any, log: ProgressLog, params: DetectParams) -> tuple[list[str], list[str]]:
    """(every new event, the events this agent caused or saw itself); updates `log`."""
    events: list[str] = []
    own: list[str] = []
    goal_objects = getattr(belief, "goal_objects", None)
    satisfied = getattr(belief, "satisfied", None)
    known = goal_objects() if callable(goal_objects) else []
    for obj in known:
        if obj.id in log.found:
            continue
        log.found.add(obj.id)
        if log.started and params.discoveries:
            text = f"found {obj.label}{_where(belief, obj)}"
            events.append(text)
            if getattr(obj, "source", "seen") == "seen":
                own.append(text)
    for predicate in getattr(belief, "goal", []) if callable(satisfied) else []:
        key = f"{predicate.relation}:{predicate.object_name}:{predicate.target_id}"
        count = min(int(satisfied(predicate)), predicate.count)
        if count <= log.done.get(key, 0):
            continue
        log.done[key] = count
        if log.started and params.subgoals:
            target = f"<{predicate.target_name}> ({predicate.target_id})"
            relation = predicate.relation.lower()
            put = _my_put(observation, predicate)
            done = f"{count}/{predicate.count} {predicate.object_name} {relation} {target}"
            events.append(f"put {put} {relation} {target}, {count}/{predicate.count} done" if put else done)
            if put:
                own.append(events[-1])
    log.started = True
    return events, own


@node(
    "progress.detect",
    reads=("observation",),
    writes=("progress_event", "progress_report"),
    params=DetectParams,
)
def detect_progress(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Name this step's progress (goal object found, subgoal done); entering a room is not progress.

    `progress_event` is everything new to this agent's belief (partners' reports included);
    `progress_report` is only what it found or finished itself, the part worth telling the designer.
    """
    log = ctx.memory.notes.setdefault("progress", ProgressLog())
    events, own = detect(ctx.memory.semantic, state.get("observation"), log, ctx.params)
    if events and ctx.tracer is not None:
        ctx.tracer.event("progress", step=getattr(state.get("observation"), "step", None), events=events, own=own)
    return {"progress_event": "; ".join(events) or None, "progress_report": "; ".join(own) or None}
