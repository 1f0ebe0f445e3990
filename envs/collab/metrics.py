"""The games' episode metrics: turns to capture (Capture) and escape or not, in how many turns (Escape).

Capture's `turns_to_capture` is the turn of the capture, or the horizon (30) when the thief got away, as the
reference counts it; `success` is a capture. Escape's `success` is an escape (`escaped`); `caught` marks a loss;
neither means the turn cap (or the safety stop) ended the game. `turns` is the turns played either way (the
reference averages it over every trial); the suite tables give the escape rate as the mean of `escaped`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class PlayerMetrics(BaseModel):
    """One player's share."""

    invalid_actions: int = 0
    presses: int = 0
    fixes: int = 0
    communication_steps: int = 0
    characters_sent: int = 0


class CollabMetrics(BaseModel):
    """Team metrics of either game (`summary()` for the runner and result tables) and `per_agent`."""

    success: bool
    steps: int = Field(description="turns played")
    turns: int
    turns_to_capture: int | None = Field(default=None, description="Capture: the capture's turn, else the horizon")
    escaped: bool | None = Field(default=None, description="Escape: a player escaped")
    caught: bool | None = Field(default=None, description="Escape: the killer caught a player")
    generators_repaired: int | None = None
    invalid_actions: int = 0
    communication_steps: int = 0
    characters_sent: int = 0
    per_agent: dict[str, PlayerMetrics]

    def summary(self) -> dict[str, float]:
        return {key: float(value) for key, value in self.model_dump(exclude={"per_agent"}).items()
                if value is not None}
