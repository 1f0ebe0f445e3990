"""Free-text nodes: a short LLM-written description of the situation, from the node's template."""

from __future__ import annotations

from typing import Any

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.keys import INVALID
from coopgraph.nodes.programs import TextParams, TextProgram, adapter_for, run_program
from coopgraph.nodes.registry import node
from coopgraph.nodes.state import key

DESCRIPTION = key("description", str, family="text", doc="an LLM-written description of the situation")


@node(
    "text.describe",
    reads=("facts",),
    writes=(DESCRIPTION, INVALID),
    params=TextParams,
    prompt="text/describe",
    program=TextProgram,
)
def describe(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Summarise the facts in one line, so later nodes (and people reading traces) see the gist."""
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=state.get("facts", {}))
    text = prediction.text.splitlines()[0].strip() if prediction.valid else ""
    return {"description": text, "invalid": not prediction.valid}
