"""REVECA's communication module: it speaks in four cases only, because every message costs a step.

1. start-up exchange — on its first step the agent says where it is and what relevant things it sees;
2. validation request — `dialogue.ask` sends the question `validation.check_plan` wrote;
3. validation answer — a partner's "have you ... <x> (id)?" is answered from this agent's own memory;
4. subgoal achieved — after a put, it reports what went where.
With `phrasing: llm` (the faithful wiring) the LLM words cases 1, 3 and 4 from the template's content, as
the reference has the LLM write messages; the validation question (case 2) stays a template, since the
partner's answer is matched to it by the `have you ... <name> (id)?` form.
Messages are written from memory with `<name> (id)` labels (which partners' message readers turn back into
facts), never by copying a partner's words, and sending is a primitive `send_message` action that goes
through the environment like any other.
"""

from __future__ import annotations

import re
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import Belief, Goals, Objects, Partners, Rooms, Sightings
from coopgraph.envs.protocol import (
    LABEL_PATTERN,
    SEND_MESSAGE,
    ObjectInfo,
    Observation,
    PrimitiveAction,
    label,
)
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.keys import ACTION
from coopgraph.nodes.programs import TextParams, TextProgram, adapter_for, run_program
from coopgraph.nodes.registry import node, router
from coopgraph.nodes.reveca_notes import RANK, REVECA, PendingQuestion, RevecaNotes, message_key, reveca_notes
from coopgraph.nodes.state import EPISODIC

_ADDRESSEE = re.compile(r"\b([A-Z][a-z]+)\s*,\s*have you\b")
_LABEL = re.compile(r"<[^<>]+> \(\d+\)")
_ASKED = re.compile(rf"\bhave you\b[^?]*?{LABEL_PATTERN}[^?]*\?", re.IGNORECASE)


def _send(ctx: NodeContext[Any], obs: Observation, text: str, what: str, to: str | None = None) -> dict[str, Any]:
    ctx.memory.episodic.add_action(f"[{SEND_MESSAGE}] {what}", obs.time, "done")
    return {ACTION: PrimitiveAction(kind=SEND_MESSAGE, message=text, recipient=to), EPISODIC: ctx.memory.episodic,
            REVECA: reveca_notes(ctx.memory)}


def _addressee(question: str, belief: Belief) -> str | None:
    """The one partner a question names, when there are several to choose from: only that partner needs it (with
    one partner, a message to everyone is the same message, and stays as it always was)."""
    partners = belief.partners if isinstance(belief, Partners) else {}  # the capability, not a probe
    named = _ADDRESSEE.search(question)
    if len(partners) < 2 or named is None:
        return None
    return next((pid for pid, p in partners.items() if p.name.lower() == named[1].lower()), None)


def _fit(text: str, limit: int) -> str:
    """Cut at the last sentence end that fits in `limit` characters (or hard, when none does)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > 0 else cut


# ----------------------------------------------------------------------------- the four cases
def startup_text(obs: Observation, belief: Belief, notes: RevecaNotes, limit: int) -> str:
    """Where I am and the relevant things around me (items with what they lie on or in).

    The things in view come from the observation's `Sightings`; a world whose observations list none says only where
    the agent is."""
    objects = cast(Objects, belief).objects
    visible: list[ObjectInfo] = list(obs.visible_objects) if isinstance(obs, Sightings) else []
    if notes.relevance:  # rated: the strong and medium things, strongest first
        seen = [o for o in visible if RANK.get(notes.relevance.get(o.id, "low"), 1) >= RANK["medium"]]
        seen.sort(key=lambda o: (-RANK.get(notes.relevance.get(o.id, "low"), 1), o.id))
    else:  # nothing rated (the no-relevance ablation): whatever is in view, surfaces aside
        seen = [o for o in visible if o.kind != "surface"]
    items = []
    for obj in seen:
        holder_id = obj.inside if obj.inside is not None else obj.on
        holder = objects.get(holder_id) if holder_id is not None else None
        relation = "in" if obj.inside is not None else "on"
        items.append(f"{obj.label} {relation} {holder.label}" if holder else obj.label)
    place = cast(Rooms, belief)
    head = f"Hi, this is {obs.agent_name}. I am in the {label(place.room_name(place.room_id), place.room_id)}."
    listed = ""
    for item in items:
        candidate = f"{listed}, {item}" if listed else item
        if len(f"{head} I see {candidate}.") > limit:
            break
        listed = candidate
    return f"{head} I see {listed}." if listed else head


def _addressed_to_someone_else(text: str, others: list[str]) -> bool:
    """"Carol, have you ...?" is Carol's to answer; a question naming no teammate is everyone's."""
    named = _ADDRESSEE.search(text)
    return named is not None and named.group(1).lower() in {name.lower() for name in others}


def answer_text(obs: Observation, belief: Belief, notes: RevecaNotes) -> tuple[str | None, list[str]]:
    """Answers to this step's unanswered questions, from my own interaction history; and their keys."""
    others = [p.name for p in cast(Partners, belief).partners.values()]
    sentences: list[str] = []
    keys: list[str] = []
    for message in obs.messages:
        key = message_key(message.sender, message.step, message.text)
        if message.sender == obs.agent_id or key in notes.answered:
            continue
        asked = _ASKED.findall(message.text)
        if not asked or _addressed_to_someone_else(message.text, others):
            continue
        keys.append(key)
        for name, oid in asked:
            sentences.append(_answer_one(int(oid), name, belief, notes))
    return (" ".join(dict.fromkeys(sentences)) or None), keys


def _answer_one(object_id: int, name: str, belief: Belief, notes: RevecaNotes) -> str:
    known = cast(Objects, belief).objects.get(object_id)
    what = known.label if known is not None else label(name, object_id)
    touch = notes.touched.get(object_id)
    if touch is None:
        return f"No, I have not touched {what}."
    if touch.verb == "took":
        holding = object_id in cast(Objects, belief).holding
        return f"Yes, I took {what} at step {touch.step}" + ("; I am holding it." if holding else ".")
    if touch.verb == "put":
        relation = "in" if _is_container(belief, touch.where) else "on"
        return f"Yes, I moved {what}: it is {relation} {touch.where} now."
    return f"Yes, I opened {what} at step {touch.step}."


def _is_container(belief: Belief, where: str | None) -> bool:
    match = re.search(r"\((\d+)\)", where or "")
    obj = cast(Objects, belief).objects.get(int(match.group(1))) if match else None
    return obj is not None and obj.kind == "container"


def announce_text(belief: Belief, notes: RevecaNotes) -> str:
    task = cast(Goals, belief)
    done = ", ".join(f"{task.satisfied(p)}/{p.count} {p.object_name}" for p in task.goal)
    return f"I put {'; '.join(notes.unannounced_puts)}." + (f" Done so far: {done}." if done else "")


class SpeakParams(TextParams):
    phrasing: Literal["llm", "template"] = Field(
        default="llm", description="llm: the LLM phrases each message from its template's content (the reference "
        "has the LLM write messages), kept only if every <name> (id) survives; template: the template text")
    startup: bool = Field(default=True, description="case 1: say where I am and what I see on the first step")
    answer: bool = Field(default=True, description="case 3: answer partners' validation questions")
    announce: bool = Field(default=True, description="case 4: report finished puts")
    max_chars: int = Field(default=300, ge=40, le=2000, description="longest message written")
    max_tokens: int = Field(default=120, ge=1, le=4096, description="longest phrasing the model may write")


_CASES = {"answer": "answering my partner's question", "start-up": "starting: where I am and what I see",
          "put report": "I finished a subgoal"}


def phrase(ctx: NodeContext[SpeakParams], obs: Observation, content: str, case: str) -> str:
    """The message to send: the template's `content` in the LLM's words (`phrasing: llm`), or as it is.

    The phrased text must keep every `<name> (id)` of the content, since partners turn those labels back into
    facts; one that drops a label, or no valid answer, sends the template text instead (traced)."""
    if ctx.params.phrasing == "template":
        return content
    partners = cast(Partners, ctx.belief).partners
    context = {"agent_name": obs.agent_name, "partner_names": [p.name for p in partners.values()],
               "goal": obs.goal_text, "case": _CASES.get(case, case), "content": content}
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=context)
    text = " ".join(prediction.text.split()) if prediction.valid else ""
    labels = set(_LABEL.findall(content))
    if text and labels <= set(_LABEL.findall(text)):
        return _fit(text, ctx.params.max_chars)
    if ctx.tracer is not None:
        ctx.tracer.event("phrasing_rejected", node=ctx.name, raw=text, case=case)
    return content


@node("dialogue.speak", reads=("observation",), writes=(ACTION, REVECA, EPISODIC), params=SpeakParams,
      prompt="dialogue/phrase", program=TextProgram, requires={"objects", "goals", "rooms", "partners"},
      template_facts=False, template_vars=("agent_name", "partner_names", "goal", "case", "content"))
def speak(state: dict[str, Any], ctx: NodeContext[SpeakParams]) -> dict[str, Any]:
    """Send a message when one of REVECA's scheduled cases applies (answer > start-up > subgoal report).

    Answers go out even in the middle of a plan (the plan resumes next step); a put is reported once no
    plan is running, so the report never cuts a plan short.
    """
    obs: Observation = state["observation"]
    belief = ctx.belief
    if not cast(Partners, belief).partners:
        return {}
    notes = reveca_notes(ctx.memory)
    params = ctx.params
    if params.answer:
        text, keys = answer_text(obs, belief, notes)
        notes.answered.update(keys)
        if text:
            return _send(ctx, obs, phrase(ctx, obs, _fit(text, params.max_chars), "answer"), "answer")
    if params.startup and not notes.started:
        notes.started = True
        text = startup_text(obs, belief, notes, params.max_chars)
        return _send(ctx, obs, phrase(ctx, obs, text, "start-up"), "start-up")
    if params.announce and notes.unannounced_puts and ctx.memory.plan is None:
        text = announce_text(belief, notes)
        notes.unannounced_puts.clear()
        return _send(ctx, obs, phrase(ctx, obs, _fit(text, params.max_chars), "put report"), "put report")
    return {REVECA: notes}  # what was answered is noted even when nothing is said


@router("dialogue.spoke", branches=("spoke", "silent"), reads=("action",))
def spoke(state: dict[str, Any], ctx: NodeContext) -> str:
    """End the step when a message is being sent; otherwise go on."""
    return "spoke" if state.get("action") is not None else "silent"


class AskParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    wait_steps: int = Field(default=2, ge=0, le=20, description="steps to wait for the answer before acting")


@node("dialogue.ask", reads=("question", "options", "choice_index", "observation"), writes=(ACTION, REVECA, EPISODIC),
      params=AskParams)
def ask(state: dict[str, Any], ctx: NodeContext[AskParams]) -> dict[str, Any]:
    """Send the validation question and remember which plan waits on it, until when."""
    obs: Observation = state["observation"]
    question = state.get("question")
    index, options = state.get("choice_index"), state.get("options") or []
    if not question or index is None or not 0 <= index < len(options):
        return {}
    plan = options[index]
    notes = reveca_notes(ctx.memory)
    target = f"<{plan.target_name}> ({plan.target_id})"
    notes.pending = PendingQuestion(plan.target_id, target, plan, obs.time, obs.time + 1 + ctx.params.wait_steps)
    notes.questions_asked += 1
    return _send(ctx, obs, question, f"question about {target}", to=_addressee(question, ctx.belief))
