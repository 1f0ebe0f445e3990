"""The games' skill book: every action takes one turn, so a plan is one primitive action and then done."""

from __future__ import annotations

from coopgraph.envs.protocol import SEND_MESSAGE, Affordance, Observation, PrimitiveAction, SkillStatus, SkillStep

#: The primitive of each affordance kind, and the name its room id carries in the action's text.
TARGETS: dict[str, str] = {"move": "room", "press": "button", "fix": "generator"}


def primitive(plan: Affordance) -> PrimitiveAction:
    """The world action of an affordance of either game (`[move] <room> (2)`, `[press] <button> (9)`, ...)."""
    if plan.kind == SEND_MESSAGE:
        return PrimitiveAction(kind=SEND_MESSAGE, message=plan.message or "")
    room = getattr(plan, "room", None)
    if plan.kind in TARGETS and room is not None:
        return PrimitiveAction(kind=plan.kind, target_id=int(room), target_name=TARGETS[plan.kind])
    return PrimitiveAction(kind="wait" if plan.kind == "wait" else "stay")


class TurnSkills:
    """Implements the `SkillBook` protocol: one turn per plan (DONE with its action)."""

    def reset(self) -> None:
        """Nothing is kept between plans."""

    def next_action(self, plan: Affordance, observation: Observation) -> SkillStep:
        action = primitive(plan)
        return SkillStep(status=SkillStatus.DONE, action=action, reason=f"{action.kind} this turn")
