"""Partner nodes: keep REVECA's histories of what this agent and its partners did and where they were seen.

The histories and the estimates made from them (interpolating, extrapolating) are in partner_model.py.
"""

from __future__ import annotations

from typing import Any

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.partner_model import record_partners, record_self
from coopgraph.nodes.registry import node
from coopgraph.nodes.reveca_notes import REVECA, reveca_notes


@node("partners.track", reads=("observation",), writes=(REVECA,), requires={"rooms"})
def track(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Keep REVECA's agent histories: my own interactions and every partner sighting, each step.

    Runs every step (cheap, no LLM) so the interpolation between sightings has its anchors.
    """
    obs = state["observation"]
    notes = reveca_notes(ctx.memory)
    record_self(notes, obs)
    record_partners(notes, ctx.memory.semantic, obs)
    return {REVECA: notes}
