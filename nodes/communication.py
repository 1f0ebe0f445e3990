"""Communication: draft what to tell partners (CoELA's message module); sending is an action like any other."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.programs import TextParams, TextProgram, adapter_for, llm_profile, run_program
from coopgraph.nodes.registry import node


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
    writes=("message",),
    params=DraftParams,
    prompt="communication/draft_message",
    program=TextProgram,
)
def draft_message(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Write a short message worth sending now; the planner decides whether to send it.

    An unusable or empty draft simply means no [send_message] option this time. A planner-only profile
    (`local-coop`: never taught to write or to pick a message) is not asked at all.
    """
    if not llm_profile(ctx).get("drafts_messages", True):
        return {"message": None}
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=state.get("facts", {}))
    if not prediction.valid:
        return {"message": None}
    draft = _trim(prediction.text, ctx.params.max_chars)
    if not draft or _already_said(draft, state.get("facts", {})):
        return {"message": None}  # nothing new to say is a reason not to spend a step talking
    return {"message": draft}


def _already_said(draft: str, facts: dict[str, Any]) -> bool:
    """True when the draft repeats a dialogue line or the opening pleasantries the prompt shows."""
    said = _normal(str(facts.get("dialogue", "")))
    normal = _normal(draft)
    return normal in said or normal.startswith(("hi, i will tell you", "thanks, i will do the same"))


def _normal(text: str) -> str:
    return " ".join(text.lower().replace('"', " ").split())
