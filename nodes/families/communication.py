"""Communication: draft what to tell partners (CoELA's message module), or send the news a template writes.

Sending is an action like any other.

A prompt may script the opening of the dialogue (C-WAH's: "Hi, I will tell you ..." / "Thanks, I will do the
same."), and a model sometimes just copies it. Which openings are scripted is the template's to say, in its
`scripted_openings` block (one per line, never part of the prompt); a draft beginning with one is dropped.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

from pydantic import Field

from coopgraph.envs.capabilities import Partners
from coopgraph.envs.protocol import SEND_MESSAGE, PrimitiveAction
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.families.execution import ReplanParams, history_text, needs_plan
from coopgraph.nodes.keys import ACTION
from coopgraph.nodes.news import NEWS, NewsRecord
from coopgraph.nodes.programs import TextParams, TextProgram, adapter_for, run_program
from coopgraph.nodes.registry import node, router
from coopgraph.nodes.state import EPISODIC, key
from coopgraph.prompts.render import PROMPTS_DIR, environment, template_file

_OPENINGS_BLOCK = "scripted_openings"

MESSAGE = key("message", str | None, family="communication",
              doc="a drafted message, offered as the [send_message] action")


class DraftParams(TextParams):
    max_chars: int = Field(default=500, ge=20, le=2000, description="longer drafts are cut at a sentence end")
    max_tokens: int = Field(default=60, ge=1, le=1024)


def _trim(text: str, limit: int) -> str:
    text = " ".join(text.strip().strip('"').split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    return cut[: end + 1] if end > limit // 3 else cut


@node(
    "communication.draft_message",
    reads=("facts",),
    writes=(MESSAGE,),
    params=DraftParams,
    prompt="communication/draft_message",
    program=TextProgram,
)
def draft_message(state: dict[str, Any], ctx: NodeContext[DraftParams]) -> dict[str, Any]:
    """Write a short message worth sending now; the planner decides whether to send it.

    An unusable or empty draft simply means no [send_message] option this time. A planner-only profile
    (`local-coop`: never taught to write) refuses specs with this node before the run (E322).
    """
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=state.get("facts", {}))
    if not prediction.valid:
        return {"message": None}
    draft = _trim(prediction.text, ctx.params.max_chars)
    openings = scripted_openings(ctx.prompt, ctx.resources.env) if ctx.prompt else ()
    if not draft or _already_said(draft, state.get("facts", {}), openings):
        return {"message": None}  # nothing new to say is a reason not to spend a step talking
    return {"message": draft}


@lru_cache(maxsize=32)
def scripted_openings(template: str, env_name: str | None) -> tuple[str, ...]:
    """The dialogue openings the world's template scripts (its `scripted_openings` block), normalised."""
    compiled = environment(str(PROMPTS_DIR)).get_template(template_file(template, env_name))
    block = compiled.blocks.get(_OPENINGS_BLOCK)
    if block is None:
        return ()
    lines = "".join(block(compiled.new_context({}))).splitlines()
    return tuple(_normal(line) for line in lines if line.strip())


def _already_said(draft: str, facts: dict[str, Any], openings: tuple[str, ...]) -> bool:
    """True when the draft repeats a dialogue line or begins with an opening the prompt scripts."""
    said = _normal(str(facts.get("dialogue", "")))
    normal = _normal(draft)
    return normal in said or normal.startswith(openings)


def _normal(text: str) -> str:
    return " ".join(text.lower().replace('"', " ").split())


# ----------------------------------------------------------------------------- template news
@node("communication.report_news", reads=("observation",), writes=(ACTION, NEWS, EPISODIC),
      requires={"news", "partners"})
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
    noted: dict[str, Any] = {NEWS: record}  # the reporter keeps what it has noted and told
    plan, started = ctx.memory.plan, ctx.memory.plan_started_step
    if plan is None or started is None or started >= obs.time or record.reported_plan_step == started:
        return noted
    record.reported_plan_step = started
    text = reporter.compose(belief, plan)
    if not text:
        return noted
    sent = kit.affordances.available(belief, message=text)[0]
    ctx.memory.episodic.add_action(history_text(sent), obs.time, "done")
    ctx.memory.episodic.add_message(obs.agent_id, text, obs.time)
    if ctx.tracer is not None:
        ctx.tracer.event("news", step=obs.time, plan=plan.text, message=text)
    return {**noted, EPISODIC: ctx.memory.episodic, ACTION: PrimitiveAction(kind=SEND_MESSAGE, message=text)}


@router("communication.reported", branches=("spoke", "plan", "continue"), reads=("action", "new_messages"),
        params=ReplanParams)
def reported(state: dict[str, Any], ctx: NodeContext) -> str:
    """End the step when news is being sent; otherwise decide as `execution.needs_plan` does."""
    if state.get("action") is not None:
        return "spoke"
    return needs_plan(state, ctx)
