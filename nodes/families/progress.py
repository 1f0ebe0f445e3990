"""Progress detection (CaPo section 4.3): the events that make a meta-plan stale.

What counts as progress is the world's to say (`Belief.progress_events`: in C-WAH a goal object becoming
known, or a subgoal's count going up; entering a room is not progress, since re-planning costs messages).
This node only keeps the kinds its params ask for and splits what this agent did itself from what it was told.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import DISCOVERY, SUBGOAL, Belief
from coopgraph.envs.protocol import Observation
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.registry import node
from coopgraph.nodes.state import BELIEF, key

PROGRESS_EVENT = key("progress_event", str | None, family="progress",
                     doc="this step's progress, everything new to the belief (CaPo re-plans on it)")
PROGRESS_REPORT = key("progress_report", str | None, family="progress",
                      doc="the part of progress_event this agent found or did itself")


class DetectParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    discoveries: bool = Field(default=True, description="a goal object seen (or told of) for the first time")
    subgoals: bool = Field(default=True, description="a subgoal's count going up")


def detect(belief: Belief, observation: Observation, params: DetectParams) -> tuple[list[str], list[str]]:
    """(every new event of the kinds asked for, the ones this agent caused or saw itself), in the world's order."""
    wanted = {DISCOVERY} if params.discoveries else set()
    wanted |= {SUBGOAL} if params.subgoals else set()
    kept = [event for event in belief.progress_events(observation) if event.kind in wanted]
    return [event.text for event in kept], [event.text for event in kept if event.own]


@node(
    "progress.detect",
    reads=("observation",),
    writes=(PROGRESS_EVENT, PROGRESS_REPORT, BELIEF),  # the belief remembers what it has reported
    params=DetectParams,
)
def detect_progress(state: dict[str, Any], ctx: NodeContext[DetectParams]) -> dict[str, Any]:
    """Name this step's progress (goal object found, subgoal done); entering a room is not progress.

    `progress_event` is everything new to this agent's belief (partners' reports included);
    `progress_report` is only what it found or finished itself, the part worth telling the designer.
    """
    obs: Observation = state["observation"]
    events, own = detect(ctx.belief, obs, ctx.params)
    if events and ctx.tracer is not None:
        ctx.tracer.event("progress", step=obs.time, events=events, own=own)
    return {PROGRESS_EVENT: "; ".join(events) or None, PROGRESS_REPORT: "; ".join(own) or None, BELIEF: ctx.belief}
