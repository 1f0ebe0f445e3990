"""The C-WAH skill book (procedural memory): executes one high-level action as primitive actions.

Each call looks at the current observation and returns the next primitive action, or a final status:
done, failed (the plan cannot work: object gone, hands full, repeated rejections, no progress) or
interrupted (a partner took the object). Walking is delegated to the environment, which follows the
shortest path through doorways; the skill book only decides where to walk and when to interact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.envs.cwah.layout import euclid
from coopgraph.envs.protocol import (
    Affordance,
    HouseObservation,
    ObjectInfo,
    Observation,
    PrimitiveAction,
    SkillStatus,
    SkillStep,
)

if TYPE_CHECKING:
    from coopgraph.envs.cwah.env import CWAHAgentInfo


def _running(action: PrimitiveAction) -> SkillStep:
    return SkillStep(status=SkillStatus.RUNNING, action=action)


def _end(status: SkillStatus, reason: str = "") -> SkillStep:
    return SkillStep(status=status, reason=reason)


class CWAHSkillBook:
    """Implements the `SkillBook` protocol for C-WAH; one instance per agent."""

    def __init__(
        self, reach: float = 1.5, hands: int = 2, max_plan_steps: int = 80, max_rejections: int = 2
    ) -> None:
        self.reach = reach
        self.hands = hands
        self.max_plan_steps = max_plan_steps
        self.max_rejections = max_rejections
        self.reset()

    @classmethod
    def from_env_info(cls, env_info: CWAHAgentInfo, **options: Any) -> CWAHSkillBook:
        config = env_info.config
        return cls(reach=config.reach, hands=config.hands, **options)

    def reset(self) -> None:
        self._plan: Affordance | None = None
        self._steps = 0
        self._rejections = 0
        self._last: PrimitiveAction | None = None
        self._last_position: tuple[float, float] | None = None
        self._sent = False
        self._put_any = False

    def next_action(self, plan: Affordance, observation: Observation) -> SkillStep:
        assert isinstance(observation, HouseObservation), "C-WAH observes a HouseObservation"
        if plan is not self._plan:
            self.reset()
            self._plan = plan
        elif self._last is not None and observation.last_action == self._last.text:
            stalled = self._last.kind == "walk" and observation.position == self._last_position
            if not observation.last_action_ok or stalled:
                self._rejections += 1
                if self._rejections >= self.max_rejections:
                    return _end(
                        SkillStatus.FAILED, observation.last_action_reason or "walking makes no progress"
                    )
            elif self._last.kind == "put":
                self._put_any = True
        if self._steps >= self.max_plan_steps:
            return _end(SkillStatus.FAILED, f"no progress after {self._steps} steps")
        handler = getattr(self, f"_{plan.kind}", None)
        if handler is None:
            return _end(SkillStatus.FAILED, f"no skill for {plan.kind!r}")
        step: SkillStep = handler(plan, observation)
        if step.action is not None:
            self._steps += 1
            self._last, self._last_position = step.action, observation.position
        return step

    # ------------------------------------------------------------------ helpers
    def _close(self, obs: HouseObservation, obj: ObjectInfo) -> bool:
        return obj.position is None or euclid(obs.position, obj.position) <= self.reach

    @staticmethod
    def _walk(target_id: int, name: str | None) -> SkillStep:
        return _running(PrimitiveAction(kind="walk", target_id=target_id, target_name=name))

    def _approach_then(self, obs: HouseObservation, obj: ObjectInfo, action: PrimitiveAction) -> SkillStep:
        return _running(action) if self._close(obs, obj) else self._walk(obj.id, obj.name)

    def _go_to_room(self, plan: Affordance, obs: HouseObservation) -> SkillStep | None:
        if plan.room_id is None or obs.room_id == plan.room_id:
            return None
        return self._walk(plan.room_id, plan.room_name)

    # ------------------------------------------------------------------ skills
    def _goexplore(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if obs.room_id == plan.target_id:
            return _end(SkillStatus.DONE, f"in the <{plan.target_name}>")
        return self._walk(plan.target_id, plan.target_name)  # type: ignore[arg-type]

    def _gocheck(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        walking = self._go_to_room(plan, obs)
        if walking:
            return walking
        container = obs.visible(plan.target_id)  # type: ignore[arg-type]
        if container is None:
            return _end(SkillStatus.FAILED, f"<{plan.target_name}> ({plan.target_id}) is not here")
        if container.is_open:
            return _end(SkillStatus.DONE, f"looked inside {container.label}")
        return self._approach_then(
            obs, container, PrimitiveAction(kind="open", target_id=container.id, target_name=container.name)
        )

    def _gograb(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if plan.target_id in obs.held_ids():
            return _end(SkillStatus.DONE, f"holding <{plan.target_name}> ({plan.target_id})")
        if len(obs.holding) >= self.hands:
            return _end(SkillStatus.FAILED, "both hands are full")
        for partner in obs.partners:
            if any(held.id == plan.target_id for held in partner.holding):
                return _end(SkillStatus.INTERRUPTED, f"{partner.name} has taken <{plan.target_name}>")
        walking = self._go_to_room(plan, obs)
        if walking:
            return walking
        obj = obs.visible(plan.target_id)  # type: ignore[arg-type]
        if obj is None:
            container = obs.visible(plan.via_id) if plan.via_id is not None else None
            if container is not None and not container.is_open:
                return self._approach_then(
                    obs,
                    container,
                    PrimitiveAction(kind="open", target_id=container.id, target_name=container.name),
                )
            return _end(
                SkillStatus.FAILED, f"<{plan.target_name}> ({plan.target_id}) is not where it was seen"
            )
        return self._approach_then(
            obs, obj, PrimitiveAction(kind="grab", target_id=obj.id, target_name=obj.name)
        )

    def _goput(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        todo = obs.to_deliver(plan)
        if not todo:
            if self._put_any:
                return _end(SkillStatus.DONE, f"put everything on/in <{plan.target_name}>")
            return _end(SkillStatus.FAILED, "holding nothing to put there")
        walking = self._go_to_room(plan, obs)
        if walking:
            return walking
        target = obs.visible(plan.target_id)  # type: ignore[arg-type]
        if target is None:
            return _end(SkillStatus.FAILED, f"<{plan.target_name}> ({plan.target_id}) is not here")
        if target.kind == "container" and not target.is_open:
            return self._approach_then(
                obs, target, PrimitiveAction(kind="open", target_id=target.id, target_name=target.name)
            )
        item = todo[0]
        return self._approach_then(
            obs,
            target,
            PrimitiveAction(
                kind="put",
                object_id=item.id,
                object_name=item.name,
                target_id=target.id,
                target_name=target.name,
            ),
        )

    def _send_message(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if self._sent:
            return _end(SkillStatus.DONE, "message sent")
        self._sent = True
        return _running(PrimitiveAction(kind="send_message", message=plan.message or ""))
