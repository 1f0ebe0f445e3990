"""Template news: partners hear what this agent did, found and goes for next, with no LLM writing it.

A planner that cannot write (the distilled `local-coop`) otherwise leaves its partner blind: two such agents
check the same containers and go for the same objects. The environment's reporter (C-WAH: MHP's templates,
which partners' message readers turn back into facts) decides what is news and whether it is worth a step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from coopgraph.envs.capabilities import Partners
from coopgraph.envs.protocol import SEND_MESSAGE, PrimitiveAction
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.execution import ReplanParams, history_text, needs_plan
from coopgraph.nodes.registry import node, router
from coopgraph.nodes.state import channel


@dataclass
class NewsRecord:
    """The `news` channel: the world's reporter (what was told already) and the plan last reported."""

    reporter: Any = None
    reported_plan_step: int | None = None


NEWS = channel("news", NewsRecord, NewsRecord, "what template news already told partners", family="news")


@node("communication.report_news", reads=("observation",), writes=("action", "news"), requires={"news", "partners"})
def report_news(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Once per new plan, send the news MHP would send with it (puts, sightings, empty containers, a grab).

    It runs every step so that every put of mine is noted; the report for a plan goes out on the step after
    the plan was chosen, and only when the reporter finds it worth a step. A message is this step's action,
    the plan goes on next step."""
    kit, belief = ctx.kit, ctx.belief
    if kit.news is None or not cast(Partners, belief).partners:
        return {}  # no reporter, or nobody to tell
    obs = state["observation"]
    record: NewsRecord = ctx.memory.channel(NEWS, NewsRecord)
    if record.reporter is None:
        record.reporter = kit.news(belief)
    reporter = record.reporter
    reporter.note_put(belief, obs)
    plan, started = ctx.memory.plan, ctx.memory.plan_started_step
    if plan is None or started is None or started >= obs.time or record.reported_plan_step == started:
        return {}
    record.reported_plan_step = started
    text = reporter.compose(belief, plan)
    if not text:
        return {}
    sent = kit.affordances.available(belief, message=text)[0]
    ctx.memory.episodic.add_action(history_text(sent), obs.time, "done")
    ctx.memory.episodic.add_message(obs.agent_id, text, obs.time)
    if ctx.tracer is not None:
        ctx.tracer.event("news", step=obs.time, plan=plan.text, message=text)
    return {"action": PrimitiveAction(kind=SEND_MESSAGE, message=text)}


@router("route.reported", branches=("spoke", "plan", "continue"), reads=("action", "new_messages"),
        params=ReplanParams)
def reported(state: dict[str, Any], ctx: NodeContext) -> str:
    """End the step when news is being sent; otherwise decide as `route.needs_plan` does."""
    if state.get("action") is not None:
        return "spoke"
    return needs_plan(state, ctx)
