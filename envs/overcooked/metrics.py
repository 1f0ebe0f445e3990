"""Overcooked's episode metrics: the score, soups delivered (team and per agent) and ticks played.

`summary()` also says who served: `deliveries_by_agent` maps each cook to the soups it delivered itself, since a
team score hides whether a planner cooked or its scripted partner carried it.

Success is defined as `score > 0`: at least one soup delivered within the horizon. Overcooked never ends early
(the paper scores what a team serves in 400 ticks), so success only says the team cooked and served at all; the
score is the measure to compare.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from coopgraph.envs.protocol import MetricValue


class CookMetrics(BaseModel):
    """One cook's share."""

    deliveries: int = 0
    points: int = 0
    invalid_actions: int = 0
    communication_steps: int = 0
    characters_sent: int = 0


class OvercookedMetrics(BaseModel):
    """Team metrics (`summary()` for the runner and result tables) and `per_agent`."""

    success: bool = Field(description="score > 0: at least one soup served")
    score: int
    deliveries: int
    steps: int = Field(description="ticks played")
    ticks: int
    invalid_actions: int = 0
    communication_steps: int = 0
    characters_sent: int = 0
    per_agent: dict[str, CookMetrics]

    def summary(self) -> dict[str, MetricValue]:
        team: dict[str, MetricValue] = {key: float(value)
                                        for key, value in self.model_dump(exclude={"per_agent"}).items()}
        team["deliveries_by_agent"] = {agent: float(cook.deliveries) for agent, cook in self.per_agent.items()}
        return team
