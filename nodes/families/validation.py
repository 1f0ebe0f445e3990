"""Validation (REVECA): before acting on an old sighting, ask whether a partner may have changed it since.

For the chosen plan's target the node lists the scenarios between the sighting and now — nobody touched it,
or partner P took or moved it — keeping only those the partner histories make possible (P could have walked
there and back between its sightings). If only "nobody" remains the plan stands without any LLM call;
otherwise the judge (the LLM after a short thought, or rules) picks the most likely scenario. A likely change
makes the agent ask that partner (`dialogue.ask`), wait a bounded number of steps (`validation.await_answer`)
and, if the partner confirms, drop the target and plan again; "no" or silence lets the plan run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import Belief, Objects, Partners, Rooms
from coopgraph.envs.protocol import Affordance, AffordanceGroup, Observation
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.families.relevance import NEEDS, sighting_line
from coopgraph.nodes.keys import CHOICE_INDEX, OPTIONS
from coopgraph.nodes.partner_model import could_reach, describe_partner
from coopgraph.nodes.programs import ChoiceParams, ChoiceProgram, adapter_for, run_program
from coopgraph.nodes.registry import node, router
from coopgraph.nodes.reveca_notes import REVECA, PendingQuestion, RevecaNotes, reveca_notes
from coopgraph.nodes.state import EPISODIC, PLAN, key

VALIDATION = key("validation", str | None, family="validation",
                 doc="REVECA's verdict on the chosen plan: valid / skipped / ask, then wait / resume / changed")
QUESTION = key("question", str | None, family="validation", doc="the validation question to send a partner")

if TYPE_CHECKING:
    from coopgraph.memory.agent_memory import AgentMemory

_NEGATIVE = re.compile(r"\b(no|not|never|haven't|hasn't|didn't|nobody|untouched|still)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.;!?|]+")
#: What a partner may have done to a plan's target, by what the plan does (anything else: "changed").
_VERBS = {AffordanceGroup.FETCH: "taken or moved", AffordanceGroup.INSPECT: "opened or emptied",
          AffordanceGroup.DELIVER: "filled"}


@dataclass
class Scenario:
    """One account of what happened to the target since it was seen; `agent_id` None means nothing did."""

    text: str
    agent_id: str | None = None
    likely_by_rules: bool = False


@dataclass
class Assessment:
    """The target, when it was last known, the possible scenarios and the evidence behind them."""

    target_id: int
    label: str
    since: int
    scenarios: list[Scenario] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)


def assess(belief: Belief, notes: RevecaNotes, plan: Affordance, step: int, partner_info: bool,
           stale_steps: int) -> Assessment | None:
    """The scenarios still possible for the plan's target, or None when there is nothing to validate."""
    obj = cast(Objects, belief).objects.get(plan.target_id) if plan.target_id is not None else None
    if obj is None:
        return None
    since = max(obj.last_seen_step, notes.confirmed.get(obj.id, -1))
    if since >= step:
        return None  # seen (or confirmed) this very step
    done = f"{_VERBS.get(plan.group, 'changed')} {obj.label}"
    found = Assessment(obj.id, obj.label, since)
    found.scenarios.append(Scenario(f"Nobody has {done} since step {since}."))
    found.evidence.append(f"It is step {step}. I last knew {sighting_line(obj, belief)} at step {since} "
                          f"({step - since} steps ago).")
    partners = cast(Partners, belief)
    for agent_id in sorted(partners.partners):
        name = partners.partners[agent_id].name
        if not partner_info:
            found.scenarios.append(Scenario(f"{name} has {done} since step {since}.", agent_id,
                                            step - since >= stale_steps))
            continue
        possible, _ = could_reach(notes, belief, agent_id, (obj.position, obj.room_id), since, step)
        intent = partners.partner_intents.get(agent_id)
        announced = intent is not None and intent.target_id == obj.id and intent.step >= since
        if not (possible or announced):
            continue
        track = [s for s in notes.tracks.get(agent_id) or [] if s.step > since]
        nearby = any(s.room_id == obj.room_id for s in track)
        text = f"{name} has {done} since step {since}" + (", as it said it would." if announced else ".")
        found.scenarios.append(Scenario(text, agent_id, announced or nearby))
        found.evidence.append(describe_partner(notes, belief, agent_id, step))
    return found


def parse_answer(text: str, target_id: int) -> Literal["changed", "unchanged"] | None:
    """Read a partner's reply about the target: a denial means unchanged, any other mention a change."""
    about = [s for s in _SENTENCE.findall(text) if f"({target_id})" in s]
    if not about:
        return None
    return "unchanged" if any(_NEGATIVE.search(s) for s in about) else "changed"


# ----------------------------------------------------------------------------- checking a plan
class ScenarioProgram(ChoiceProgram):
    """A ChoiceProgram whose default instruction judges accounts of events rather than choosing actions."""

    def __init__(self, instructions: str | None = None) -> None:
        super().__init__(instructions or "Pick the account of what happened that is most likely true.")


class ValidationParams(ChoiceParams):
    mode: Literal["scenario", "always", "never"] = Field(
        default="scenario", description="scenario: ask only when a change is likely; always: ask before every "
        "validated plan; never: no validation"
    )
    judge: Literal["llm", "rules"] = Field(default="llm", description="who picks the most likely scenario")
    scope: Literal["elsewhere", "groups"] = Field(
        default="elsewhere", description="elsewhere: every plan but a put (or a message, or exploring a room, which "
        "has no sighting to go stale) whose target is in another room, as the reference validates; groups: the "
        "plans of `groups` wherever they are (reveca-rules)")
    groups: list[AffordanceGroup] = Field(default_factory=lambda: [AffordanceGroup.FETCH],
                                          description="plan groups validated with `scope: groups`")
    partner_info: bool = Field(default=True, description="use partner histories; off: only elapsed time")
    stale_steps: int = Field(default=30, ge=1, le=1000,
                             description="without partner information, older sightings count as likely changed")


def _judge(ctx: NodeContext[ValidationParams], found: Assessment, obs: Observation) -> Scenario:
    if ctx.params.judge == "rules":
        return next((s for s in found.scenarios if s.likely_by_rules), found.scenarios[0])
    context = {"goal": obs.goal_text, "agent_name": obs.agent_name, "target": found.label,
               "evidence": found.evidence}
    options = [s.text for s in found.scenarios]
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=context, options=options)
    if prediction.valid:
        return found.scenarios[prediction.index]
    if ctx.tracer is not None:
        ctx.tracer.event("invalid_answer", node=ctx.name, raw=prediction.raw, errors=prediction.errors)
    return next((s for s in found.scenarios if s.likely_by_rules), found.scenarios[0])


def _question(belief: Belief, found: Assessment, agent_id: str | None, verb: str) -> str:
    partners = cast(Partners, belief).partners
    name = partners[agent_id].name if agent_id is not None and agent_id in partners else "Partner"
    return f"{name}, have you {verb} {found.label} since step {found.since}?"


_NOT_VALIDATED = (AffordanceGroup.DELIVER, AffordanceGroup.COMMUNICATE, AffordanceGroup.EXPLORE)


def _in_scope(belief: Belief, plan: Affordance, params: ValidationParams) -> bool:
    """Whether this plan is validated: `elsewhere`, the reference's rule (not a put, target in another room);
    `groups`, by the plan's group alone."""
    if params.scope == "groups":
        return plan.group in params.groups
    here = cast(Rooms, belief).room_id
    return plan.group not in _NOT_VALIDATED and plan.room_id is not None and plan.room_id != here


@node(
    "validation.check_plan",
    reads=("choice_index", "options", "observation"),
    writes=(VALIDATION, QUESTION, REVECA),
    params=ValidationParams,
    prompt="validation/scenario",
    program=ScenarioProgram,
    template_facts=False,
    template_vars=("goal", "agent_name", "target", "evidence"),
    requires=NEEDS | {"spatial"},
)
def check_plan(state: dict[str, Any], ctx: NodeContext[ValidationParams]) -> dict[str, Any]:
    """Decide whether the chosen plan can run as it is or a partner should be asked first.

    Writes `validation` ("valid", "skipped" or "ask") and, when asking, the `question` to send.
    """
    return {**_check(state, ctx), REVECA: reveca_notes(ctx.memory)}  # assessing keeps what it learnt in the notes


def _check(state: dict[str, Any], ctx: NodeContext[ValidationParams]) -> dict[str, Any]:
    index, options = state.get("choice_index"), state.get("options") or []
    obs: Observation = state["observation"]
    belief = ctx.belief
    params = ctx.params
    if params.mode == "never" or index is None or not 0 <= index < len(options):
        return {"validation": "skipped", "question": None}
    plan: Affordance = options[index]
    partners = cast(Partners, belief).partners
    if not _in_scope(belief, plan, params) or plan.target_id is None or not partners:
        return {"validation": "skipped", "question": None}
    notes = reveca_notes(ctx.memory)
    found = assess(belief, notes, plan, obs.time, params.partner_info, params.stale_steps)
    verb = _VERBS.get(plan.group, "changed")
    if params.mode == "always":
        if found is None:
            obj = cast(Objects, belief).objects.get(plan.target_id)
            found = Assessment(plan.target_id, obj.label if obj else plan.text, obs.time)
        partner = sorted(partners)[0]
        return {"validation": "ask", "question": _question(belief, found, partner, verb)}
    if found is None or len(found.scenarios) == 1:
        return {"validation": "valid", "question": None}  # no partner could have touched it: no call
    chosen = _judge(ctx, found, obs)
    if ctx.tracer is not None:
        ctx.tracer.event("validation", step=obs.time, target=found.label, since=found.since,
                         scenarios=[s.text for s in found.scenarios], chosen=chosen.text)
    if chosen.agent_id is None:
        return {"validation": "valid", "question": None}
    return {"validation": "ask", "question": _question(belief, found, chosen.agent_id, verb)}


@router("validation.validated", branches=("valid", "ask"), reads=("validation",))
def validated(state: dict[str, Any], ctx: NodeContext) -> str:
    """Run the plan, or ask a partner first when validation found a likely change."""
    return "ask" if state.get("validation") == "ask" else "valid"


# ----------------------------------------------------------------------------- waiting for the answer
class AwaitParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    while_waiting: Literal["idle", "proceed"] = Field(
        default="idle", description="idle: stand still until the answer or the deadline; proceed: start the "
        "plan and drop it if the answer confirms a change"
    )


def _answer(memory: AgentMemory, pending: PendingQuestion, me: str) -> str | None:
    """The verdict from what partners said since the question (dialogue memory, so a reply that arrived on
    a step spent answering someone else is not lost), or from what the belief has since seen."""
    for said in memory.episodic.messages:
        if said.sender != me and said.step > pending.asked_step:
            verdict = parse_answer(said.text, pending.target_id)
            if verdict:
                return verdict
    obj = cast(Objects, memory.semantic).objects.get(pending.target_id)
    if obj is not None and obj.held_by not in (None, me):
        return "changed"  # seen in a partner's hands
    if obj is not None and obj.room_id is None and obj.held_by is None:
        return "changed"  # looked where it was and it is gone
    return None


def _drop_plan(ctx: NodeContext[Any], step: int) -> None:
    plan = ctx.memory.plan
    ctx.memory.episodic.add_action(plan.text, step, "interrupted")
    ctx.memory.plan = None
    if ctx.tracer is not None:
        ctx.tracer.event("plan_end", step=step, plan=plan.text, status="interrupted",
                         reason="a partner confirmed it changed the target")


@node("validation.await_answer", reads=("observation",),
      writes=(VALIDATION, OPTIONS, CHOICE_INDEX, REVECA, PLAN, EPISODIC), params=AwaitParams, requires={"objects"})
def await_answer(state: dict[str, Any], ctx: NodeContext[AwaitParams]) -> dict[str, Any]:
    """While a validation question is open: read the answer, wait (bounded), or give up and act.

    A confirmed change discards the target and asks for a new plan; "no" or the deadline passing lets the
    questioned plan run (handed to `execution.start_plan` as the only option).
    """
    verdict = _await(state, ctx)  # may close the question (notes) and drop the running plan (plan, history)
    return {**verdict, REVECA: reveca_notes(ctx.memory), PLAN: ctx.memory.running, EPISODIC: ctx.memory.episodic}


def _await(state: dict[str, Any], ctx: NodeContext[AwaitParams]) -> dict[str, Any]:
    notes = reveca_notes(ctx.memory)
    pending = notes.pending
    if pending is None:
        return {"validation": None}
    obs: Observation = state["observation"]
    verdict = _answer(ctx.memory, pending, obs.agent_id)
    running = ctx.memory.plan is not None
    if verdict == "changed":
        notes.pending = None
        notes.discarded[pending.target_id] = obs.time
        if ctx.tracer is not None:
            ctx.tracer.event("validation_answer", step=obs.time, target=pending.target_label, verdict=verdict)
        if running and ctx.memory.plan.target_id == pending.target_id:  # proceeding while waiting: discard it
            _drop_plan(ctx, obs.time)
        return {"validation": "changed"}
    if verdict is None and obs.time < pending.deadline:
        if ctx.params.while_waiting == "idle" or running:
            return {"validation": "wait" if not running else None}
        return {"validation": "resume", "options": [pending.plan], "choice_index": 0}
    notes.pending = None
    notes.confirmed[pending.target_id] = obs.time  # answered "no", or silence: do not ask again about it
    if ctx.tracer is not None:
        ctx.tracer.event("validation_answer", step=obs.time, target=pending.target_label,
                         verdict=verdict or "timeout")
    if running:
        return {"validation": None}
    return {"validation": "resume", "options": [pending.plan], "choice_index": 0}


@router("validation.awaiting", branches=("wait", "resume", "plan", "continue"), reads=("validation",))
def awaiting(state: dict[str, Any], ctx: NodeContext) -> str:
    """After `validation.await_answer`: idle, run the questioned plan, plan afresh, or keep the running plan."""
    verdict = state.get("validation")
    if verdict in ("wait", "resume"):
        return verdict
    if verdict == "changed" or ctx.memory.plan is None:
        return "plan"
    return "continue"
