"""Routers shared by wirings: small pure functions that pick the next branch from the state."""

from __future__ import annotations

from typing import Any

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.registry import router


@router("route.has_choice", branches=("chosen", "none"), reads=("choice",))
def has_choice(state: dict[str, Any], ctx: NodeContext) -> str:
    """Branch on whether the planner produced an action."""
    return "chosen" if state.get("choice") else "none"
