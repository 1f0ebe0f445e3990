"""Execution: commit to the chosen action, step it with the skill book, and decide when to plan again."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.keys import ACTION
from coopgraph.nodes.registry import node, router
from coopgraph.nodes.state import DECISIONS, EPISODIC, PLAN, key

PLAN_STATUS = key("plan_status", str, family="execution", doc="running / done / failed / interrupted / none")


def history_text(plan: Any, limit: int = 80) -> str:
    """How a plan reads in the action history: a sent message is cut short (its full text is in the dialogue)."""
    text = plan.text
    return text if len(text) <= limit else text[: limit - 1] + "…"


@node("execution.start_plan", reads=("choice_index", "options", "observation"),
      writes=(PLAN_STATUS, DECISIONS, PLAN, EPISODIC))
def start_plan(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Make the chosen option the running plan (no choice: keep none and idle this step)."""
    index = state.get("choice_index")
    options = state.get("options") or []
    decided: dict[str, Any] = {DECISIONS: 1, PLAN: ctx.memory.running, EPISODIC: ctx.memory.episodic}
    running = ctx.memory.plan
    if running is not None:  # a message arrived mid-plan and the planner was asked again
        ctx.memory.episodic.add_action(history_text(running), state["observation"].time, "interrupted")
        ctx.memory.episodic.note_effect(running.text, None)
    if index is None or not 0 <= index < len(options):
        ctx.memory.plan = None
        return {**decided, PLAN_STATUS: "none"}
    ctx.memory.plan = options[index]
    ctx.memory.plan_started_step = state["observation"].time
    if ctx.tracer is not None:
        ctx.tracer.event("plan", step=state["observation"].time, plan=options[index].text,
                         invalid=bool(state.get("invalid")), reasoning=state.get("reasoning", ""))
    return {**decided, PLAN_STATUS: "running"}


@node("execution.step_plan", reads=("observation",), writes=(ACTION, PLAN_STATUS, PLAN, EPISODIC))
def step_plan(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """One primitive action of the running plan; a finished plan is logged (with whether it did nothing, as the
    skill book says) and cleared."""
    plan = ctx.memory.plan
    if plan is None:
        return {"action": None, "plan_status": "none"}
    obs = state["observation"]
    skillbook = ctx.memory.procedural
    assert skillbook is not None, "execution.step_plan ran without the world's skill book"
    step = skillbook.next_action(plan, obs)
    status = str(step.status)
    stepped: dict[str, Any] = {PLAN: ctx.memory.running, EPISODIC: ctx.memory.episodic}  # the skill book moved on
    if step.action is not None and status == "running":
        if step.action.message:  # my own words belong in the dialogue history too (partners' arrive by perception)
            ctx.memory.episodic.add_message(obs.agent_id, step.action.message, obs.time)
        return {**stepped, ACTION: step.action, PLAN_STATUS: status}
    ctx.memory.episodic.add_action(history_text(plan), obs.time, status)
    ctx.memory.episodic.note_effect(plan.text, step.unchanged)
    ctx.memory.plan = None
    if ctx.tracer is not None:
        ctx.tracer.event("plan_end", step=obs.time, plan=plan.text, status=status, reason=step.reason)
    return {**stepped, ACTION: step.action, PLAN_STATUS: status}


class ReplanParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    on_message: bool = Field(default=True, description="re-plan when a partner's message arrives")


@router("execution.needs_plan", branches=("plan", "continue"), reads=("new_messages",), params=ReplanParams)
def needs_plan(state: dict[str, Any], ctx: NodeContext[ReplanParams]) -> str:
    """Decide again when no plan runs, or (optionally) when a partner has just said something."""
    if ctx.memory.plan is None or (ctx.params.on_message and state.get("new_messages")):
        return "plan"
    return "continue"


class AfterStepParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_decisions_per_step: int = Field(default=2, ge=1, le=5)


@router("execution.after_step", branches=("act", "replan"), reads=("action", "decisions"), params=AfterStepParams)
def after_step(state: dict[str, Any], ctx: NodeContext[AfterStepParams]) -> str:
    """Act when there is an action; otherwise decide again, but only a bounded number of times per step."""
    if state.get("action") is not None or state.get("decisions", 0) >= ctx.params.max_decisions_per_step:
        return "act"
    return "replan"
