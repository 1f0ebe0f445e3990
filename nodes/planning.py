"""Planning nodes: choosing one high-level action from the list the environment offers."""

from __future__ import annotations

from typing import Any

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.programs import ChoiceParams, ChoiceProgram, adapter_for, run_program
from coopgraph.nodes.registry import node


@node(
    "planning.choose_action",
    reads=("facts", "actions", "description"),
    writes=("choice", "choice_index", "reasoning", "invalid"),
    params=ChoiceParams,
    prompt="planning/choose_action",
    program=ChoiceProgram,
)
def choose_action(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Ask the LLM to pick one listed action after a short thought; never returns an unlisted action.

    A single available action is taken without a call. An unusable answer (after retries) is
    marked invalid and replaced by the node's declared fallback.
    """
    actions = list(state.get("actions") or [])
    if len(actions) <= 1:
        only = actions[0] if actions else None
        return {"choice": only, "choice_index": 0 if actions else None, "reasoning": "", "invalid": False}
    context = dict(state.get("facts") or {})
    if state.get("description"):
        context["description"] = state["description"]
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=context, options=actions)
    if prediction.valid:
        return {"choice": actions[prediction.index], "choice_index": prediction.index,
                "reasoning": prediction.reasoning, "invalid": False}
    if ctx.tracer is not None:
        ctx.tracer.event("invalid_answer", node=ctx.name, raw=prediction.raw, errors=prediction.errors)
    fallback = 0 if ctx.params.fallback == "first" else None
    return {"choice": actions[0] if fallback == 0 else None, "choice_index": fallback,
            "reasoning": "", "invalid": True}
