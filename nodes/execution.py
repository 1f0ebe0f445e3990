"""Execution: list the actions the environment affords, commit to the chosen one, step it with the skill book."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.protocol import Affordance, AffordanceGroup
from coopgraph.nodes.candidates import distance_notes
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.registry import node, router


def history_text(plan: Any, limit: int = 80) -> str:
    """How a plan reads in the action history: a sent message is cut short (its full text is in the dialogue)."""
    text = plan.text
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ListParams(BaseModel):
    """What `planning.list_actions` adds to the bare action list."""

    model_config = ConfigDict(extra="forbid")

    distances: bool = Field(default=False, description="note my walking distance next to each action (in the "
                            "facts' `option_notes`), as LLM-Co's state does; off in CoELA as published")
    skip_done_within: int = Field(default=0, ge=0, description="leave off an action this agent finished within its "
                                  "last N actions but a put (0: off, as published), unless nothing else is left: "
                                  "a weak planner otherwise walks back and forth between two rooms it has explored")
    skip_claimed: bool = Field(default=False, description="leave off grabbing an object a partner said it goes to "
                               "grab (unless I said so first), unless nothing else is left; off in CoELA as "
                               "published, where the LLM reads the dialogue")


def _is_message(option: Affordance) -> bool:
    return option.group == AffordanceGroup.COMMUNICATE


def _leave_off(options: list[Affordance], drop: Callable[[Affordance], bool]) -> list[Affordance]:
    """The options `drop` rejects left off (a message never is); all of them when that would leave only a message."""
    kept = [o for o in options if _is_message(o) or not drop(o)]
    return kept if any(not _is_message(o) for o in kept) else options


def without_recent(options: list[Affordance], episodic: Any, within: int) -> list[Affordance]:
    """The options minus those finished (`done`) among the agent's last `within` actions, except the ones the
    world marks `repeatable` (a C-WAH put delivers what is in the hands now, so the same text is due again for
    the next object, however recently the last one was done)."""
    if within <= 0:
        return options
    recent = {a.text for a in episodic.actions[-within:] if a.outcome == "done"}
    return _leave_off(options, lambda o: not o.repeatable and history_text(o) in recent)


def without_claimed(options: list[Affordance]) -> list[Affordance]:
    """The options minus fetches a partner announced it goes for (unless I announced first: the world's
    `announced` claim). Only fetches, as in MHP's planner: an announced check or exploration goes stale."""
    return _leave_off(options, lambda o: o.group == AffordanceGroup.FETCH
                      and any(claim.reason == "announced" for claim in o.claims))


@node("planning.list_actions", reads=("message", "facts"), writes=("actions", "options", "facts"), params=ListParams)
def list_actions(state: dict[str, Any], ctx: NodeContext[ListParams]) -> dict[str, Any]:
    """Ask the environment's affordances for the high-level actions open to this belief.

    With `distances`, each option's walking distance goes into the facts as a note keyed by the option's text, so
    it stays with its option however the chooser orders the list. With `skip_done_within`, what the agent has just
    finished is left off; with `skip_claimed`, what a partner said it goes for."""
    affordances = ctx.resources.affordances
    assert affordances is not None, "planning.list_actions ran without the world's affordances"
    options = affordances.available(ctx.belief, message=state.get("message"))
    options = without_recent(options, ctx.memory.episodic, ctx.params.skip_done_within)
    if ctx.params.skip_claimed:
        options = without_claimed(options)
    update: dict[str, Any] = {"actions": [option.text for option in options], "options": options}
    if ctx.params.distances:
        update["facts"] = {**(state.get("facts") or {}), "option_notes": distance_notes(options)}
    return update


@node("execution.start_plan", reads=("choice_index", "options", "observation"), writes=("plan_status", "decisions"))
def start_plan(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Make the chosen option the running plan (no choice: keep none and idle this step)."""
    index = state.get("choice_index")
    options = state.get("options") or []
    decisions = state.get("decisions", 0) + 1
    running = ctx.memory.plan
    if running is not None:  # a message arrived mid-plan and the planner was asked again
        ctx.memory.episodic.add_action(history_text(running), state["observation"].time, "interrupted")
    if index is None or not 0 <= index < len(options):
        ctx.memory.plan = None
        return {"plan_status": "none", "decisions": decisions}
    ctx.memory.plan = options[index]
    ctx.memory.plan_started_step = state["observation"].time
    if ctx.tracer is not None:
        ctx.tracer.event("plan", step=state["observation"].time, plan=options[index].text,
                         invalid=bool(state.get("invalid")), reasoning=state.get("reasoning", ""))
    return {"plan_status": "running", "decisions": decisions}


@node("execution.step_plan", reads=("observation",), writes=("action", "plan_status"))
def step_plan(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """One primitive action of the running plan; a finished plan is logged and cleared."""
    plan = ctx.memory.plan
    if plan is None:
        return {"action": None, "plan_status": "none"}
    obs = state["observation"]
    skillbook = ctx.memory.procedural
    assert skillbook is not None, "execution.step_plan ran without the world's skill book"
    step = skillbook.next_action(plan, obs)
    status = str(step.status)
    if step.action is not None and status == "running":
        if step.action.message:  # my own words belong in the dialogue history too (partners' arrive by perception)
            ctx.memory.episodic.add_message(obs.agent_id, step.action.message, obs.time)
        return {"action": step.action, "plan_status": status}
    ctx.memory.episodic.add_action(history_text(plan), obs.time, status)
    ctx.memory.plan = None
    if ctx.tracer is not None:
        ctx.tracer.event("plan_end", step=obs.time, plan=plan.text, status=status, reason=step.reason)
    return {"action": step.action, "plan_status": status}


class ReplanParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    on_message: bool = Field(default=True, description="re-plan when a partner's message arrives")


@router("route.needs_plan", branches=("plan", "continue"), reads=("new_messages",), params=ReplanParams)
def needs_plan(state: dict[str, Any], ctx: NodeContext[ReplanParams]) -> str:
    """Decide again when no plan runs, or (optionally) when a partner has just said something."""
    if ctx.memory.plan is None or (ctx.params.on_message and state.get("new_messages")):
        return "plan"
    return "continue"


class AfterStepParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_decisions_per_step: int = Field(default=2, ge=1, le=5)


@router("route.after_step", branches=("act", "replan"), reads=("action", "decisions"), params=AfterStepParams)
def after_step(state: dict[str, Any], ctx: NodeContext[AfterStepParams]) -> str:
    """Act when there is an action; otherwise decide again, but only a bounded number of times per step."""
    if state.get("action") is not None or state.get("decisions", 0) >= ctx.params.max_decisions_per_step:
        return "act"
    return "replan"
