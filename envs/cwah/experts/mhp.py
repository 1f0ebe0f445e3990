"""The MHP baseline as a team member: belief → cost-based subgoal choice → skill book, with template messages.

In the spirit of Watch-And-Help's hierarchical planner (CoELA's "MHP"): it tracks a belief over object
locations, picks subgoals from the shared C-WAH action list, executes them step by step, replans when
goal-relevant news arrives, infers partners' intent from what they hold and say, and (unless silent)
tells partners about puts, its next subgoal and what it found, one step per message.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs.cwah.affordances import CWAHAffordances
from coopgraph.envs.cwah.belief import CWAHBelief
from coopgraph.envs.cwah.experts.planner import SubgoalPlanner
from coopgraph.envs.cwah.messages import read_message
from coopgraph.envs.cwah.news import NewsReporter
from coopgraph.envs.cwah.skillbook import CWAHSkillBook
from coopgraph.envs.protocol import (
    WAIT,
    Affordance,
    HouseObservation,
    MemberBase,
    Observation,
    PrimitiveAction,
    SkillStatus,
)

RETRY_AFTER_STEPS = 10  # a plan that failed is not chosen again for this long


class MHPAgent(MemberBase):
    """Hierarchical planner team member; `communicate=False` gives the silent variant."""

    def __init__(self, name: str = "mhp", communicate: bool = True, prior_weight: float = 0.0) -> None:
        self.name = name
        self.communicate = communicate
        self.planner = SubgoalPlanner(prior_weight)
        self.affordances = CWAHAffordances()
        self.tracer: Any = None  # the runner hands over one bound to this agent for `plan` events (`set_tracer`)

    def reset(self, agent_id: str, env_info: Any, seed: int) -> None:  # the world's AgentInfo
        self.agent_id = agent_id
        self.belief = CWAHBelief(agent_id, env_info)
        self.skills = CWAHSkillBook.from_env_info(env_info)
        self.max_chars = self.belief.config.max_message_chars
        self.plan: Affordance | None = None
        self.after_message: Affordance | None = None
        self.plan_version = -1
        self.reporter = NewsReporter(self.max_chars)
        self.failed: dict[tuple[str, int | None], int] = {}

    # ----------------------------------------------------------------- acting
    def act(self, observation: Observation) -> PrimitiveAction:
        assert isinstance(observation, HouseObservation), "C-WAH observes a HouseObservation"
        self.belief.update(observation)
        for message in observation.messages:
            read_message(self.belief, message)
        self.reporter.note_put(self.belief, observation)
        if self.plan is not None and self._stale(self.plan):
            self.plan = None
        for _ in range(6):
            if self.plan is None:
                self.plan = self._next_plan()
                if self.plan is None:
                    return WAIT
            step = self.skills.next_action(self.plan, observation)
            if step.status is SkillStatus.RUNNING and step.action is not None:
                return step.action
            self._trace("plan_end", plan=self.plan.text, status=step.status.value, reason=step.reason)
            if step.status is not SkillStatus.DONE:
                self.failed[(self.plan.kind, self.plan.target_id)] = observation.time
            self.plan, self.after_message = self.after_message, None
        return WAIT

    def _stale(self, plan: Affordance) -> bool:
        """Replan when goal-relevant news arrived during an exploratory plan or the target was claimed."""
        if plan.kind in ("goexplore", "gocheck"):
            return self.belief.version != self.plan_version and bool(self.belief.goal_objects())
        if plan.kind == "gograb":
            return plan.target_id in self.planner.claimed(self.belief)
        return False

    def _options(self) -> list[Affordance]:
        """The affordances the planner chooses among: all but plans that failed within the last few steps."""
        return [
            o
            for o in self.affordances.available(self.belief)
            if self.belief.step - self.failed.get((o.kind, o.target_id), -RETRY_AFTER_STEPS)
            >= RETRY_AFTER_STEPS
        ]

    def _next_plan(self) -> Affordance | None:
        choice = self.planner.choose(self.belief, self._options())
        self.plan_version = self.belief.version
        if choice is None:
            return None
        self._trace("plan", plan=choice.text)
        text = self.reporter.compose(self.belief, choice) if self.communicate and self.belief.partners else ""
        if not text:
            return choice
        self.after_message = choice
        return self.affordances.available(self.belief, message=text)[0]

    def _trace(self, kind: str, **fields: Any) -> None:
        if self.tracer is not None:
            self.tracer.event(kind, step=self.belief.step, **fields)
