"""The MHP baseline as a team member: belief → cost-based subgoal choice → skill book, with template messages.

In the spirit of Watch-And-Help's hierarchical planner (CoELA's "MHP"): it tracks a belief over object
locations, picks subgoals from the shared C-WAH action list, executes them step by step, replans when
goal-relevant news arrives, infers partners' intent from what they hold and say, and (unless silent)
tells partners about puts, its next subgoal and what it found, one step per message.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs.baselines.planner import SubgoalPlanner
from coopgraph.envs.baselines.templates import (
    News,
    intent_phrase,
    put_phrase,
    read_message,
    seen_phrase,
    write_message,
)
from coopgraph.envs.cwah.affordances import CWAHAffordances
from coopgraph.envs.cwah.belief import Belief, PartnerIntent
from coopgraph.envs.cwah.skillbook import CWAHSkillBook
from coopgraph.envs.protocol import WAIT, Affordance, Observation, PrimitiveAction, SkillStatus

RETRY_AFTER_STEPS = 10  # a plan that failed is not chosen again for this long


class MHPAgent:
    """Hierarchical planner team member; `communicate=False` gives the silent variant."""

    def __init__(self, name: str = "mhp", communicate: bool = True, prior_weight: float = 0.0) -> None:
        self.name = name
        self.communicate = communicate
        self.planner = SubgoalPlanner(prior_weight)
        self.affordances = CWAHAffordances()
        self.tracer: Any = None

    def set_tracer(self, tracer: Any) -> None:
        """Optional hook: the runner hands over a tracer bound to this agent for `plan` events."""
        self.tracer = tracer

    def reset(self, agent_id: str, env_info: dict[str, Any], seed: int) -> None:
        self.agent_id = agent_id
        self.belief = Belief(agent_id, env_info)
        self.skills = CWAHSkillBook.from_env_info(env_info)
        self.max_chars = self.belief.config.max_message_chars
        self.plan: Affordance | None = None
        self.after_message: Affordance | None = None
        self.plan_version = -1
        self.last_intent: tuple[str, int | None] | None = None
        self.pending_puts: list[str] = []
        self.reported: dict[int, tuple[Any, ...]] = {}
        self.reported_empty: set[int] = set()
        self.failed: dict[tuple[str, int | None], int] = {}

    # ----------------------------------------------------------------- acting
    def act(self, observation: Observation) -> PrimitiveAction:
        self.belief.update(observation)
        for message in observation.messages:
            read_message(self.belief, message)
        self._remember_put(observation)
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
                self.failed[(self.plan.kind, self.plan.target_id)] = observation.step
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
        text = self._compose(choice) if self.communicate and self.belief.partners else ""
        if not text:
            return choice
        self.after_message = choice
        return self.affordances.available(self.belief, message=text)[0]

    # ----------------------------------------------------------------- messages
    def _remember_put(self, obs: Observation) -> None:
        if not (obs.last_action_ok and obs.last_action and obs.last_action.startswith("[put]")):
            return
        action = PrimitiveAction.parse(obs.last_action)
        obj = self.belief.objects.get(action.object_id)  # type: ignore[arg-type]
        target = self.belief.objects.get(action.target_id)  # type: ignore[arg-type]
        if obj is not None and target is not None:
            relation = "in" if target.kind == "container" else "on"
            room = (
                self.belief.rooms[target.room_id].label
                if target.room_id in self.belief.rooms
                else "<room> (0)"
            )
            self.pending_puts.append(put_phrase(obj, relation, target, room))
            self.reported[obj.id] = ("put",)

    def _news(self, choice: Affordance) -> News:
        belief = self.belief
        news = News(puts=list(self.pending_puts))
        intent = (choice.kind, choice.target_id)
        if intent != self.last_intent and choice.kind in ("gograb", "gocheck", "goexplore"):
            news.intent = intent_phrase(choice.kind, f"<{choice.target_name}> ({choice.target_id})")
        for obj in belief.goal_objects():
            holder_id = obj.inside if obj.inside is not None else obj.on
            holder = belief.objects.get(holder_id) if holder_id is not None else None
            where = (obj.room_id, obj.inside, obj.on)
            if obj.source == "seen" and holder is not None and self.reported.get(obj.id) != where:
                news.seen.append(seen_phrase(obj, holder, belief.rooms[obj.room_id].label))  # type: ignore[index]
        for container_id in sorted(belief.checked_containers):
            container = belief.objects.get(container_id)
            if container is None or container_id in self.reported_empty or container.room_id is None:
                continue
            if any(
                o.inside == container_id and o.name in belief.goal_classes for o in belief.objects.values()
            ):
                continue
            if container.source == "seen":
                news.empty.setdefault(belief.rooms[container.room_id].label, []).append(container.label)
        return news

    def _compose(self, choice: Affordance) -> str:
        news = self._news(choice)
        worth_a_step = bool(news.puts or news.seen or (news.intent and choice.kind == "gograb"))
        if not worth_a_step:
            return ""
        text = write_message(news, self.max_chars)
        self.pending_puts.clear()
        self.last_intent = (choice.kind, choice.target_id)
        if news.intent:
            self.belief.intent = PartnerIntent(
                kind=choice.kind, target_id=choice.target_id, step=self.belief.step
            )
        for obj in self.belief.goal_objects():
            if f"{obj.label} " in text:
                self.reported[obj.id] = (obj.room_id, obj.inside, obj.on)
        for labels in news.empty.values():
            for label in labels:
                if label in text:
                    self.reported_empty.add(int(label.rsplit("(", 1)[1].rstrip(")")))
        return text

    def _trace(self, kind: str, **fields: Any) -> None:
        if self.tracer is not None:
            self.tracer.event(kind, step=self.belief.step, **fields)
