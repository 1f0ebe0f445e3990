"""A scripted team member that plays through a world's own kit, the way a graph agent does.

Overcooked's cooks, TDW-MAT's transport planner and the Collab games' players all pick one of the kit's listed
affordances when their last plan has ended and let the skill book run it. Playing through the kit keeps a
scripted partner to the same actions, costs and rules as an LLM agent, and makes its choices recordable as
labelled decision points (`evals/recording.py`).
"""

from __future__ import annotations

import random
from typing import Any

from coopgraph.envs.protocol import (
    SEND_MESSAGE,
    WAIT,
    Affordance,
    AgentInfo,
    AgentKit,
    MemberBase,
    Observation,
    PrimitiveAction,
    SkillStatus,
)
from coopgraph.envs.registry import agent_kit


class KitMember(MemberBase):
    """Implements `TeamMember`: `choose(belief, options)` picks a listed affordance, the kit's skill book runs it.

    Subclasses write `choose`; `ended` hears each plan's end (a recorder logs it). `attempts` bounds how many
    plans may end without a primitive action within one step before the member waits."""

    name = "kit-member"
    attempts = 3

    def __init__(self, name: str | None = None) -> None:
        self.name = name or self.name
        self.kit: AgentKit | None = None
        self.plan: Any = None
        self.rng = random.Random(0)

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        self.kit = agent_kit(env_info.env, env_info)
        self.plan = None
        self.rng = random.Random(seed)

    def options(self, belief: Any) -> list[Any]:
        """The listed affordances this member chooses among (a scripted member never drafts messages)."""
        assert self.kit is not None
        return [o for o in self.kit.affordances.available(belief) if o.kind != SEND_MESSAGE]

    def choose(self, belief: Any, options: list[Any]) -> Any:
        """The member's policy: one of `options` (never empty) for this belief; each subclass writes its own."""
        raise NotImplementedError

    def ended(self, plan: Affordance, status: str, time: int, unchanged: str | None = None) -> None:
        """A plan has ended (`done`, `failed`, ...), at `time` in the world's own unit; `unchanged` is the skill
        book's report of one that did nothing (`SkillStep.unchanged`)."""

    def act(self, observation: Observation) -> PrimitiveAction:
        assert self.kit is not None, "reset() the member before it acts"
        belief = self.kit.belief
        belief.update(observation)
        for _ in range(self.attempts):
            if self.plan is None:
                options = self.options(belief)
                if not options:
                    return WAIT
                self.plan = self.choose(belief, options)
            step = self.kit.skillbook.next_action(self.plan, observation)
            if step.status != SkillStatus.RUNNING:
                self.ended(self.plan, str(step.status), observation.time, step.unchanged)
                self.plan = None
            if step.action is not None:
                return step.action
        return WAIT
