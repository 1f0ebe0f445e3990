"""Overcooked's episode metrics: the score, soups delivered (team and per agent) and ticks played.

Success is defined as `score > 0`: at least one soup delivered within the horizon. Overcooked never ends early
(the paper scores what a team serves in 400 ticks), so success only says the team cooked and served at all; the
score is the measure to compare.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


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

    def summary(self) -> dict[str, float]:
        return {key: float(value) for key, value in self.model_dump(exclude={"per_agent"}).items()}
