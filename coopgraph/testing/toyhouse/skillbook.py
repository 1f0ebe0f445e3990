"""The toyhouse skill book: runs one high-level action (`fetch`, `deliver`, `open`, `visit`, `set_down`,
`send_message`) as primitive actions (`move`, `take`, `drop`, `open`, `send_message`), one tick at a time.

Each call looks at the observation and returns the next primitive action or a final status: done, failed
(the thing is gone, the hand is full, the world refused twice, too many ticks) or interrupted (a partner
took the item). Walking is one `[move]` per cell; the world picks the path.
"""

from __future__ import annotations

from coopgraph.envs.protocol import (
    WAIT,
    Affordance,
    HouseObservation,
    ObjectInfo,
    Observation,
    PrimitiveAction,
    SkillStatus,
    SkillStep,
)


def _run(action: PrimitiveAction) -> SkillStep:
    return SkillStep(status=SkillStatus.RUNNING, action=action)


def _end(status: SkillStatus, reason: str = "") -> SkillStep:
    return SkillStep(status=status, reason=reason)


def _move(target_id: int | None, name: str | None) -> SkillStep:
    return _run(PrimitiveAction(kind="move", target_id=target_id, target_name=name))


class HouseSkillBook:
    """Implements the `SkillBook` protocol for the toyhouse; one per agent."""

    def __init__(self, hands: int = 1, max_plan_ticks: int = 40, max_rejections: int = 2) -> None:
        self.hands, self.max_plan_ticks, self.max_rejections = hands, max_plan_ticks, max_rejections
        self.reset()

    def reset(self) -> None:
        self._plan: Affordance | None = None
        self._ticks = 0
        self._rejections = 0
        self._last: PrimitiveAction | None = None
        self._sent = False
        self._dropped = False

    def next_action(self, plan: Affordance, observation: Observation) -> SkillStep:
        assert isinstance(observation, HouseObservation), "the toyhouse observes a HouseObservation"
        obs = observation
        if plan is not self._plan:
            self.reset()
            self._plan = plan
        if not obs.ready:
            return _run(WAIT)  # the last action still runs
        if self._last is not None and obs.last_action == self._last.text:
            if not obs.last_action_ok:
                self._rejections += 1
                if self._rejections >= self.max_rejections:
                    return _end(SkillStatus.FAILED, obs.last_action_reason or "the world refused twice")
            elif self._last.kind == "drop":
                self._dropped = True
        if self._ticks >= self.max_plan_ticks:
            return _end(SkillStatus.FAILED, f"no progress after {self._ticks} ticks")
        skill = {"visit": self._visit, "open": self._open, "fetch": self._fetch, "deliver": self._deliver,
                 "set_down": self._set_down, "send_message": self._send_message}.get(plan.kind)
        if skill is None:
            return _end(SkillStatus.FAILED, f"no skill for {plan.kind!r}")
        step = skill(plan, obs)
        if step.action is not None:
            self._ticks += 1
            self._last = step.action
        return step

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _approach(obs: HouseObservation, thing: ObjectInfo, action: PrimitiveAction) -> SkillStep:
        """`action` when standing on the thing's cell, else a step toward it."""
        return _run(action) if thing.position == obs.position else _move(thing.id, thing.name)

    @staticmethod
    def _into_room(plan: Affordance, obs: HouseObservation) -> SkillStep | None:
        if plan.room_id is None or obs.room_id == plan.room_id:
            return None
        return _move(plan.room_id, plan.room_name)

    @staticmethod
    def _open_it(obs: HouseObservation, container: ObjectInfo) -> SkillStep:
        return HouseSkillBook._approach(
            obs, container, PrimitiveAction(kind="open", target_id=container.id, target_name=container.name))

    # ------------------------------------------------------------------ skills
    def _visit(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if obs.room_id == plan.target_id:
            return _end(SkillStatus.DONE, f"in the <{plan.target_name}>")
        return _move(plan.target_id, plan.target_name)

    def _open(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        walking = self._into_room(plan, obs)
        if walking:
            return walking
        container = obs.visible(plan.target_id) if plan.target_id is not None else None
        if container is None:
            return _end(SkillStatus.FAILED, f"<{plan.target_name}> ({plan.target_id}) is not here")
        if container.is_open:
            return _end(SkillStatus.DONE, f"looked inside {container.label}")
        return self._open_it(obs, container)

    def _fetch(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if plan.target_id in obs.held_ids():
            return _end(SkillStatus.DONE, f"holding <{plan.target_name}> ({plan.target_id})")
        if len(obs.holding) >= self.hands:
            return _end(SkillStatus.FAILED, "the hand is full")
        for partner in obs.partners:
            if any(held.id == plan.target_id for held in partner.holding):
                return _end(SkillStatus.INTERRUPTED, f"{partner.name} has taken <{plan.target_name}>")
        walking = self._into_room(plan, obs)
        if walking:
            return walking
        item = obs.visible(plan.target_id) if plan.target_id is not None else None
        if item is not None:
            return self._approach(obs, item, PrimitiveAction(kind="take", target_id=item.id, target_name=item.name))
        container = obs.visible(plan.via_id) if plan.via_id is not None else None
        if container is not None and not container.is_open:
            return self._open_it(obs, container)
        return _end(SkillStatus.FAILED, f"<{plan.target_name}> ({plan.target_id}) is not where it was believed")

    def _deliver(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        todo = obs.to_deliver(plan)
        if not todo:
            if self._dropped:
                return _end(SkillStatus.DONE, f"delivered to <{plan.target_name}>")
            return _end(SkillStatus.FAILED, "holding nothing to deliver there")
        walking = self._into_room(plan, obs)
        if walking:
            return walking
        target = obs.visible(plan.target_id) if plan.target_id is not None else None
        if target is None:
            return _end(SkillStatus.FAILED, f"<{plan.target_name}> ({plan.target_id}) is not here")
        if target.kind == "container" and not target.is_open:
            return self._open_it(obs, target)
        item = todo[0]
        return self._approach(obs, target, PrimitiveAction(kind="drop", object_id=item.id, object_name=item.name,
                                                           target_id=target.id, target_name=target.name))

    def _set_down(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if plan.target_id not in obs.held_ids():
            return _end(SkillStatus.DONE, f"set down <{plan.target_name}>")
        return _run(PrimitiveAction(kind="drop", target_id=plan.target_id, target_name=plan.target_name))

    def _send_message(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if self._sent:
            return _end(SkillStatus.DONE, "message sent")
        self._sent = True
        return _run(PrimitiveAction(kind="send_message", message=plan.message or ""))
