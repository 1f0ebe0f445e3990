"""Progress as C-WAH counts it (CaPo section 4.3): a goal object becoming known, a subgoal's count going up.

Entering a room, opening a container or walking is not progress: re-planning costs messages, and those change
nothing a meta-plan assigns. The tracker remembers what was already known so that only news is reported; its
first call sets the baseline. The texts are what a CaPo designer reads ("found <apple> (305) in the kitchen",
"put <cupcake> (300) on <coffeetable> (111), 1/1 done"), so they are the world's to write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coopgraph.envs.capabilities import DISCOVERY, SUBGOAL, ProgressEvent
from coopgraph.envs.protocol import STRICT_LABEL_PATTERN, GoalPredicate, Observation, label

if TYPE_CHECKING:
    from coopgraph.envs.cwah.belief import CWAHBelief, KnownObject

_PUT_HEAD = "[put]"  # C-WAH's primitive that places a held object on or in a target
_FIRST_LABEL = re.compile(STRICT_LABEL_PATTERN)


def _where(belief: CWAHBelief, obj: KnownObject) -> str:
    """` inside <fridge> (165)`, ` on <table> (9)` or ` in the kitchen`: where a found object lies."""
    for relation, holder_id in (("inside", obj.inside), ("on", obj.on)):
        holder = belief.objects.get(holder_id) if holder_id is not None else None
        if holder is not None:
            return f" {relation} {holder.label}"
    return f" in the {belief.room_name(obj.room_id)}" if obj.room_id is not None else ""


def _my_put(obs: Observation, predicate: GoalPredicate) -> str | None:
    """The object's label when this agent's own last action completed the subgoal (a successful put there)."""
    last = obs.last_action or ""
    if not (obs.last_action_ok and last.startswith(_PUT_HEAD)):
        return None
    match = _FIRST_LABEL.search(last)
    if match is None or match.group(1) != predicate.object_name or f"({predicate.target_id})" not in last:
        return None
    return match.group(0)


@dataclass
class ProgressTracker:
    """What was already known (goal objects found, subgoal counts), so that only news is reported."""

    found: set[int] = field(default_factory=set)
    done: dict[str, int] = field(default_factory=dict)
    started: bool = False

    def events(self, belief: CWAHBelief, obs: Observation) -> list[ProgressEvent]:
        """Goal objects known for the first time, then subgoals whose count went up, since the last call."""
        events: list[ProgressEvent] = []
        for obj in belief.goal_objects():
            if obj.id in self.found:
                continue
            self.found.add(obj.id)
            if self.started:
                events.append(ProgressEvent(DISCOVERY, f"found {obj.label}{_where(belief, obj)}", obj.source == "seen"))
        for predicate in belief.goal:
            key = f"{predicate.relation}:{predicate.object_name}:{predicate.target_id}"
            count = min(int(belief.satisfied(predicate)), predicate.count)
            if count <= self.done.get(key, 0):
                continue
            self.done[key] = count
            if self.started:
                events.append(_subgoal_event(obs, predicate, count))
        self.started = True
        return events


def _subgoal_event(obs: Observation, predicate: GoalPredicate, count: int) -> ProgressEvent:
    target = label(predicate.target_name, predicate.target_id)
    relation = predicate.relation.lower()
    put = _my_put(obs, predicate)
    if put:
        return ProgressEvent(SUBGOAL, f"put {put} {relation} {target}, {count}/{predicate.count} done", True)
    return ProgressEvent(SUBGOAL, f"{count}/{predicate.count} {predicate.object_name} {relation} {target}", False)
