"""TDW-MAT's measures: the transport rate (targets at the bed over targets), frames, messages and characters.

A table's Food and Stuff columns are the means of `transport_rate` over each task's episodes (`task_food` says
which an episode is); EI against a baseline team is computed per episode from two runs, by the report.
"""

from __future__ import annotations

from pydantic import BaseModel


class AgentMetrics(BaseModel):
    metres_walked: float
    communication_steps: int
    characters_sent: int
    invalid_actions: int


class TDWMetrics(BaseModel):
    """Team metrics of one episode (the runner's `summary()` and `per_agent`)."""

    success: bool
    transport_rate: float
    delivered: int
    targets: int
    task_food: bool
    frames: int
    steps: int
    subgoals_done: int
    subgoals_total: int
    communication_steps: int
    characters_sent: int
    invalid_actions: int
    per_agent: dict[str, AgentMetrics]

    def summary(self) -> dict[str, float]:
        return {key: float(value) for key, value in self.model_dump(exclude={"per_agent"}).items()}
