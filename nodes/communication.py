"""Communication: draft what to tell partners (CoELA's message module); sending is an action like any other.

A prompt may script the opening of the dialogue (C-WAH's: "Hi, I will tell you ..." / "Thanks, I will do the
same."), and a model sometimes just copies it. Which openings are scripted is the template's to say, in its
`scripted_openings` block (one per line, never part of the prompt); a draft beginning with one is dropped.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import Field

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.programs import TextParams, TextProgram, adapter_for, run_program
from coopgraph.nodes.registry import node
from coopgraph.prompts.render import PROMPTS_DIR, environment, template_file

_OPENINGS_BLOCK = "scripted_openings"


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
