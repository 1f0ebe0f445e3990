"""Relevance (REVECA): rate what the agent learns — objects, containers, messages — strong/medium/low/none.

A level is given when something is first stored or its whereabouts change, kept in the REVECA side-table
and on the vector-store entry, and later used to order and filter what reaches prompts: "none" (for example
Noisy-C-WAH's dummy objects) never reaches the planner, so its prompt stays short however cluttered the house.

Two scorers. `llm` (the paper's: levels "assessed by LLMs") asks the model once per step for every new line at
once (never one call per object) and falls back to the rules for any line it leaves unrated; this is what lets a
dummy object be judged rather than excluded by its class. `rules` (the `reveca-rules` variant) reads the task:
goal objects and their destinations are strong, containers that may still hide a goal object medium, furniture
and finished things low, anything of a class the task never asks for none; it costs nothing and is exact where
the goal names classes and targets, as in C-WAH, but "none" then equals "dummy"
exactly and is never wrong. `levels` picks the level set (R=4 as published; 3 and 5 for the R ablations).
"""

from __future__ import annotations

import re
from typing import Any, Literal, cast

from pydantic import Field

from coopgraph.envs.capabilities import Belief, Containers, Goals, KnownObject, Objects, Partners, Rooms
from coopgraph.envs.protocol import SIGNED_LABEL, Message, Observation
from coopgraph.memory.episodic import quoted
from coopgraph.memory.levels import LEVEL_SETS, in_set
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.programs import TextParams, TextProgram, adapter_for, run_program
from coopgraph.nodes.registry import node
from coopgraph.nodes.reveca_notes import RANK, REVECA, RevecaNotes, message_key, reveca_notes
from coopgraph.nodes.state import VECTOR_LOG

#: What `relevance.score` and the lines it writes read of the belief (`memory.focus` and validation reuse them).
NEEDS = frozenset({"objects", "goals", "rooms", "containers", "partners"})
_QUESTION = re.compile(r"\b(have|did|could|can) you\b[^?]*\?", re.IGNORECASE)
_REPLY_LINE = re.compile(
    r"^\s*\[?(?P<tag>M?\d+)\]?\s*[:.)\-=]\s*\**(?P<level>very[ _-]strong|strong|medium|low|none)\b", re.I)


# ----------------------------------------------------------------------------- rules
def _goal(belief: Belief) -> tuple[set[int], set[str]]:
    goal = cast(Goals, belief).goal
    return {p.target_id for p in goal}, {p.object_name for p in goal}


def object_level(obj: KnownObject, belief: Belief) -> str:
    """The rules scorer for one believed object (anything with id, name, kind)."""
    targets, classes = _goal(belief)
    if obj.id in targets:
        return "strong"
    if obj.kind == "item":
        if obj.name not in classes:
            return "none"
        return "strong" if cast(Goals, belief).predicate_for(obj) is not None else "low"
    if obj.kind == "container":
        return "low" if obj.id in cast(Containers, belief).checked_containers else "medium"
    return "low"


def _label_level(name: str, object_id: int, belief: Belief, notes: RevecaNotes) -> str:
    if object_id in notes.relevance:
        return notes.relevance[object_id]
    known = cast(Objects, belief).objects.get(object_id)
    if known is not None:
        return object_level(known, belief)
    targets, classes = _goal(belief)
    return "strong" if object_id in targets or name in classes else "low"


def message_level(text: str, belief: Belief, notes: RevecaNotes) -> str:
    """A message matters as much as the most relevant thing it names; a question to us is strong."""
    if not text.strip():
        return "none"
    if _QUESTION.search(text):
        return "strong"
    levels = [_label_level(m["name"], int(m["id"]), belief, notes) for m in SIGNED_LABEL.finditer(text)]
    if not levels:
        return "low"
    return max(levels, key=RANK.__getitem__)


# ----------------------------------------------------------------------------- lines
def sighting_line(obj: KnownObject, belief: Belief) -> str:
    """What is remembered about an object, in the `<name> (id)` form prompts and messages use."""
    objects = cast(Objects, belief).objects
    parts = [obj.label]
    if obj.held_by:
        partner = cast(Partners, belief).partners.get(obj.held_by)
        parts.append(f"held by {partner.name if partner is not None else obj.held_by}")
    elif obj.inside is not None:
        holder = objects.get(obj.inside)
        parts.append(f"in {holder.label if holder else f'({obj.inside})'}")
    elif obj.on is not None:
        holder = objects.get(obj.on)
        parts.append(f"on {holder.label if holder else f'({obj.on})'}")
    if obj.room_id is not None:
        parts.append(f"in the {cast(Rooms, belief).room_name(obj.room_id)}")
    if obj.kind == "container":
        checked = obj.id in cast(Containers, belief).checked_containers
        parts.append("(looked inside)" if checked else "(not looked inside)")
    return " ".join(parts)


def _rating_key(obj: KnownObject, line: str, belief: Belief) -> str:
    """What a level depends on: the sighting, plus (for goal-class items) whether a subgoal still needs it,
    so a goal object drops to "low" once its subgoal is complete."""
    if obj.kind == "item" and obj.name in _goal(belief)[1]:
        return f"{line}|{cast(Goals, belief).predicate_for(obj) is not None}"
    return line


def _changed_objects(belief: Belief, notes: RevecaNotes) -> list[tuple[KnownObject, str, str]]:
    fresh = []
    for obj in sorted(cast(Objects, belief).objects.values(), key=lambda o: o.id):
        line = sighting_line(obj, belief)
        key = _rating_key(obj, line, belief)
        if notes.rated_lines.get(obj.id) != key:
            fresh.append((obj, line, key))
    return fresh


# ----------------------------------------------------------------------------- the node
class RatingProgram(TextProgram):
    """A TextProgram whose default instruction asks for relevance levels."""

    def __init__(self, instructions: str | None = None) -> None:
        super().__init__(instructions or "Rate how much each numbered line matters for the goal.")


class ScoreParams(TextParams):
    scorer: Literal["rules", "llm"] = Field(
        default="llm", description="llm: one batched call per step, as published; rules: from the goal, no LLM call"
    )
    max_batch: int = Field(default=24, ge=1, le=200, description="most lines rated in one LLM call")
    store_vectors: bool = Field(default=True, description="index rated lines in the vector store")
    max_tokens: int = Field(default=160, ge=8, le=2048)
    levels: Literal[3, 4, 5] = Field(default=4, description="relevance levels R: 4 as published; 3 and 5 are the "
                                     "paper's R ablations (sets in memory/levels.py)")


def _llm_levels(ctx: NodeContext[ScoreParams], obs: Observation, items: list[tuple[str, str]]) -> dict[str, str]:
    """One call for a batch of (tag, line); returns tag -> level for the lines the model rated."""
    if not items:
        return {}
    allowed = LEVEL_SETS[ctx.params.levels]
    context = {"goal": obs.goal_text, "agent_name": obs.agent_name, "levels": list(allowed),
               "items": [{"tag": tag, "text": text} for tag, text in items]}
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=context)
    if not prediction.valid:
        return {}
    wanted = {tag for tag, _ in items}
    levels = {}
    for line in prediction.text.splitlines():
        match = _REPLY_LINE.match(line)
        level = re.sub(r"[ _-]+", " ", match["level"].lower()) if match else ""
        if match and match["tag"].upper() in wanted and level in allowed:
            levels[match["tag"].upper()] = level
    return levels


def _store(ctx: NodeContext[ScoreParams], text: str, *, kind: str, step: int, level: str, **meta: Any) -> None:
    if ctx.params.store_vectors:
        ctx.memory.remember([{"text": text, "kind": kind, "step": step, "relevance": level, **meta}])


@node(
    "relevance.score",
    reads=("observation",),
    writes=(REVECA, VECTOR_LOG),
    params=ScoreParams,
    prompt="relevance/score",
    program=RatingProgram,
    template_facts=False,
    template_vars=("goal", "agent_name", "levels", "items"),
    requires=NEEDS,
)
def score(state: dict[str, Any], ctx: NodeContext[ScoreParams]) -> dict[str, Any]:
    """Rate each newly seen or moved object and each new message strong/medium/low/none, and store it.

    Levels go to the REVECA side-table (`memory.notes`) and onto the vector-store entry, so recall can skip
    "none". The LLM scorer batches everything new this step into one call.
    """
    obs: Observation = state["observation"]
    belief = ctx.belief
    notes = reveca_notes(ctx.memory)
    objects = _changed_objects(belief, notes)
    messages: list[Message] = [m for m in obs.messages if m.sender != obs.agent_id]
    llm: dict[str, str] = {}
    if ctx.params.scorer == "llm":
        batch = [(f"{i + 1}", line) for i, (_, line, _) in enumerate(objects)]
        batch += [(f"M{i + 1}", f"{m.sender} said: {quoted(m.text)}") for i, m in enumerate(messages)]
        llm = _llm_levels(ctx, obs, batch[: ctx.params.max_batch])
    room_name = cast(Rooms, belief).room_name
    allowed = LEVEL_SETS[ctx.params.levels]
    for i, (obj, line, key) in enumerate(objects):
        level = llm.get(f"{i + 1}") or in_set(object_level(obj, belief), allowed)
        notes.relevance[obj.id] = level
        notes.rated_lines[obj.id] = key
        _store(ctx, line, kind="observation", step=obs.time, level=level, object_ids=[obj.id],
               room=room_name(obj.room_id) if obj.room_id is not None else None,
               source=obj.source)
    for i, message in enumerate(messages):
        level = llm.get(f"M{i + 1}") or in_set(message_level(message.text, belief, notes), allowed)
        notes.message_relevance[message_key(message.sender, message.step, message.text)] = level
        _store(ctx, f"{message.sender} said: {quoted(message.text)}", kind="message", step=message.step, level=level,
               source="told")
    if ctx.tracer is not None and (objects or messages):
        counts = {lv: sum(1 for o, _, _ in objects if notes.relevance[o.id] == lv) for lv in allowed}
        ctx.tracer.event("relevance", step=obs.time, scorer=ctx.params.scorer, objects=counts,
                         messages=len(messages), llm_rated=len(llm))
    return {REVECA: notes, VECTOR_LOG: ctx.memory.vector_log}
