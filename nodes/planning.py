"""Planning nodes: choosing one high-level action from the list the environment offers."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.order_vote import OrderVote, choose_in_orders
from coopgraph.nodes.programs import ChoiceParams, ChoiceProgram, adapter_for, run_program
from coopgraph.nodes.registry import node


class ActionChoiceParams(ChoiceParams):
    """The choice knobs plus asking in several option orders (position-bias cancelling)."""

    orders: int = Field(default=1, ge=1, le=6, description="ask with the options in this many rotated orders and "
                        "take the majority; cancels position bias, one call per order")


def choose(ctx: NodeContext[ActionChoiceParams], context: dict[str, Any], actions: list[str]) -> OrderVote:
    """The node's decision for these facts and options: its program through its adapter, in `orders` orders."""
    adapter = adapter_for(ctx)

    def ask(shown: list[str]) -> Any:
        return run_program(ctx.program, adapter, ctx.lm, context=context, options=shown)

    return choose_in_orders(ask, actions, ctx.params.orders)


@node(
    "planning.choose_action",
    reads=("facts", "actions", "description"),
    writes=("choice", "choice_index", "reasoning", "invalid"),
    params=ActionChoiceParams,
    prompt="planning/choose_action",
    program=ChoiceProgram,
)
def choose_action(state: dict[str, Any], ctx: NodeContext[ActionChoiceParams]) -> dict[str, Any]:
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
    vote = choose(ctx, context, actions)
    if ctx.tracer is not None and len(vote.votes) > 1:
        ctx.tracer.event("order_votes", node=ctx.name, votes=vote.votes, winner=vote.index)
    if vote.index is not None:
        return {"choice": actions[vote.index], "choice_index": vote.index, "reasoning": vote.reasoning,
                "invalid": False}
    if ctx.tracer is not None:
        ctx.tracer.event("invalid_answer", node=ctx.name, raw=vote.raw, errors=vote.errors)
    fallback = 0 if ctx.params.fallback == "first" else None
    return {"choice": actions[0] if fallback == 0 else None, "choice_index": fallback,
            "reasoning": "", "invalid": True}
