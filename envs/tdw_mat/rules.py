"""The rules of TDW-MAT as text, in one place: frame costs, ranges, capacities, perception.

Numbers come from CoELA's TDW-MAT code and papers (`docs/envs/tdw-mat.md` says which are read and which are
inferred): time is counted in simulator frames, and every primitive costs the frames TDW would spend on it.
`frames_per_move` is the one walking parameter the calibration fits; the detector's miss probabilities are
the other fitted numbers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Perception = Literal["oracle", "detector"]


class TDWRules(BaseModel):
    """Settings of one TDW-MAT world; `make("tdw-mat", ...)` takes any of them as keyword options."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_frames: int = Field(default=3000, ge=1, description="the horizon in frames")
    frames_per_move: int = Field(default=14, ge=1, description="one 0.5 m step forward: fitted so RHP alone with "
                                 "oracle perception transports 0.50 (evals/bench/tdw_calibration.py)")
    frames_per_turn: int = Field(default=2, ge=1, description="one 15 degree turn")
    frames_grasp: int = Field(default=2, ge=1, description="the grasp itself, after walking to the object")
    frames_invalid: int = Field(default=1, ge=1, description="an action refused at once (out of reach, no hand)")
    frames_put_in: int = Field(default=35, ge=1, description="put a held target into the held container")
    frames_drop: int = Field(default=15, ge=1, description="drop what one hand holds")
    frames_wait: int = Field(default=1, ge=1, description="an idle agent's wait")
    message_chars_per_frame: int = Field(default=500, ge=1, description="a message costs 1 + (len-1)//this")
    max_message_chars: int = Field(default=2000, ge=1, description="the longest message delivered whole")
    step_length: float = Field(default=0.5, gt=0, description="metres per move forward")
    turn_degrees: float = Field(default=15.0, gt=0)
    grasp_range: float = Field(default=2.0, gt=0, description="an object farther than this cannot be grasped")
    grasp_arrive: float = Field(default=0.7, ge=0, description="a grasp walks the agent to this distance first")
    container_capacity: int = Field(default=3, ge=1)
    goal_radius: float = Field(default=3.0, gt=0, description="a target this near the bed, in the bedroom, counts")
    view_degrees: float = Field(default=90.0, gt=0, le=360, description="the camera's field of view")
    view_range: float = Field(default=10.0, gt=0, description="objects farther than this are not registered")
    perception: Perception = "oracle"
    p_miss: dict[str, float] = Field(
        default_factory=lambda: {"food": 0.845, "stuff": 0.934, "container": 0.15, "bed": 0.0, "agent": 0.0},
        description="detector mode: per class, the chance an object in view is missed on one observation (food and "
                    "stuff fitted to RHP alone without the oracle, 0.49 / 0.36; the container's is chosen, as no "
                    "published figure separates it)")
    seed: int = 0

    def message_frames(self, text: str) -> int:
        """Frames a message blocks its sender: one, plus one per further started block of 500 characters."""
        return 1 + max(len(text) - 1, 0) // self.message_chars_per_frame

    @property
    def metres_per_frame(self) -> float:
        return self.step_length / self.frames_per_move
