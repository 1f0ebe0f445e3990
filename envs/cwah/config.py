"""The physical constants of C-WAH in one place: walking speed, reach, hands, message limit, horizon."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CWAHConfig(BaseModel):
    """Settings of one C-WAH environment; `make("cwah", walk_speed=...)` overrides any of them."""

    model_config = ConfigDict(frozen=True)

    walk_speed: float = Field(default=0.75, gt=0, description="metres walked per walk step")
    reach: float = Field(default=1.5, gt=0, description="metres within which an agent can open/grab/put")
    hands: int = Field(default=2, ge=1, description="objects an agent can hold at once")
    max_message_chars: int = Field(default=500, ge=1, description="longer messages are cut")
    max_steps: int = Field(default=250, ge=1, description="horizon")
