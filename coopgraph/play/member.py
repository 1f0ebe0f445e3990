"""The `human` team member: a person choosing from the agent's affordances through a `Seat`.

It keeps the agent's belief with the same kit a scripted or graph member uses, reads partners' messages into it as
a graph agent's perception does, and lets the kit's skill book run the chosen plan, so a person's choice costs what
an agent's does. Every decision is a `plan` event in the trace (with `human: true`, the option number or move,
and the response time), so the trace viewer, `trace diff` and `fork` read a human run like any other.
"""

from __future__ import annotations

import time
from typing import Any

from coopgraph.envs.kit_member import KitMember
from coopgraph.envs.protocol import (
    WAIT,
    Affordance,
    AgentInfo,
    Message,
    Observation,
    PrimitiveAction,
    SkillStatus,
    message_affordance,
)
from coopgraph.play.seat import Seat
from coopgraph.play.turn import Answer, make_turn


class HumanMember(KitMember):
    """Asks its seat whenever the agent needs a new plan; a direct move (a key) is one primitive action."""

    name = "human"
    samples = True  # a person never plays the same way twice: their runs are never deterministic replicates

    def __init__(self, seat: Seat, step_limit_s: float | None = None) -> None:
        super().__init__()
        self.seat = seat
        self.step_limit_s = step_limit_s
        self.env = ""
        self.agent = ""
        self.heard: list[Message] = []
        self.tracer: Any = None

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        self.env, self.agent, self.heard = env_info.env, agent_id, []

    def _trace(self, kind: str, **fields: Any) -> None:
        if self.tracer is not None:
            self.tracer.event(kind, **fields)

    def act(self, observation: Observation) -> PrimitiveAction:
        assert self.kit is not None, "reset() the member before it acts"
        belief = self.kit.belief
        belief.update(observation)
        for message in observation.messages:
            if message.sender != self.agent:
                self.kit.read_message(belief, message)
                self.heard.append(message)
        for _ in range(self.attempts):
            if self.plan is None:
                decided = self._decide(observation)
                if decided is None or isinstance(decided, PrimitiveAction):
                    return decided or WAIT
                self.plan = decided
            step = self.kit.skillbook.next_action(self.plan, observation)
            if step.status != SkillStatus.RUNNING:
                self._trace("plan_end", step=observation.time, plan=self.plan.text, status=str(step.status),
                            reason=step.reason)
                self.plan = None
            if step.action is not None:
                return step.action
        return WAIT

    def _decide(self, obs: Observation) -> Affordance | PrimitiveAction | None:
        """Ask the person; a plan to run, a direct move, or None (no answer: wait this step)."""
        assert self.kit is not None
        options = self.options(self.kit.belief)
        turn = make_turn(self.env, obs, self.kit.belief, options, self.heard)
        started = time.perf_counter()
        answer = self.seat.ask(turn, self.step_limit_s)
        waited = round(time.perf_counter() - started, 3)
        if answer is not None and answer.problem(turn) is not None:
            answer = None  # a front end checks answers first; one that slips through is no answer
        if answer is None:
            reason = "time limit" if self.step_limit_s is not None and waited >= self.step_limit_s else "no answer"
            self._trace("plan", step=obs.time, plan=WAIT.text, human=True, idle=reason, response_s=waited)
            return None
        return self._apply(answer, obs, options, answer.response_s or waited)

    def _apply(self, answer: Answer, obs: Observation, options: list[Affordance],
               waited: float) -> Affordance | PrimitiveAction:
        assert self.kit is not None
        fields: dict[str, Any] = {"step": obs.time, "human": True, "response_s": waited, "options": len(options)}
        if answer.move is not None:
            move = PrimitiveAction(kind=answer.move)
            self._trace("plan", plan=move.text, move=answer.move, **fields)
            return move
        if answer.message is not None:
            limit = self.kit.belief.message_limit
            text = answer.message.strip()
            cut = text[:limit]
            self.heard.append(Message(sender=self.agent, text=cut, step=obs.time, truncated=len(text) > limit))
            plan = message_affordance(cut)
            self._trace("plan", plan=plan.text, choice="message", chars=len(cut), cut=len(text) > limit, **fields)
            return plan
        assert answer.choice is not None
        plan = options[answer.choice - 1]
        self._trace("plan", plan=plan.text, choice=answer.choice, **fields)
        return plan
