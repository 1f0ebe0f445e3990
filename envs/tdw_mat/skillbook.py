"""TDW-MAT's skill book: CoELA's procedural memory as primitives, one event at a time.

- go to a room: walk to its centre; a target, container or the bed coming into view for the first time during
  the walk interrupts it, so the planner can choose again (CoELA's interrupt-on-sight);
- explore: walk to within 1.02 m of the room's centre, then 16 left turns (240 degrees). With `faithful_explore`
  only the agent's first explore turns, as the reference code does (a typo keeps later ones from rotating);
- go grasp: walk to within 1 m of the object and into its room, then grasp; an object that near but behind a wall
  (believed in another room) is walked to on, through the door if one is on the way, as the arm does not reach
  through walls. A target known only by its room (told by a partner) is walked to by the room's centre until it
  is in view; one still not in view there ends the grab with no world action, and the belief, which has seen the
  same (`TOLD_LOOK_WITHIN`), has forgotten that place, so the grab is not listed again. A position
  remembered from an earlier sighting that lies outside the room the belief now places the object in is stale and
  not walked to;
- put in: one put-in;
- transport: walk to within 1.5 m of the bed and into its room, then drop one hand per event;
- send a message.
Positions of objects come from what the skill book has been shown.
"""

from __future__ import annotations

from coopgraph.envs.protocol import (
    SEND_MESSAGE,
    WAIT,
    Affordance,
    HouseObservation,
    Observation,
    Point,
    PrimitiveAction,
    SkillStatus,
    SkillStep,
)
from coopgraph.envs.tdw_mat.affordances import EXPLORE, GOTO, GRAB, PUT, TRANSPORT
from coopgraph.envs.tdw_mat.belief import TOLD_LOOK_WITHIN
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, distance
from coopgraph.envs.tdw_mat.navigation import steer

GRASP_WITHIN, CENTRE_WITHIN, BED_WITHIN, ARRIVE_WITHIN = 1.0, 1.02, 1.5, 1.0
SWEEP_TURNS = 16


def _run(action: PrimitiveAction) -> SkillStep:
    return SkillStep(status=SkillStatus.RUNNING, action=action)


def _end(status: SkillStatus, reason: str = "") -> SkillStep:
    return SkillStep(status=status, reason=reason)


class TDWSkillBook:
    """Implements the `SkillBook` protocol for TDW-MAT; one per agent."""

    def __init__(self, plan: FloorPlan, bed_id: int, *, faithful_explore: bool = False, max_events: int = 250,
                 max_rejections: int = 2) -> None:
        self.plan, self.bed_id = plan, bed_id
        self.faithful_explore, self.max_events, self.max_rejections = faithful_explore, max_events, max_rejections
        self.positions: dict[int, Point] = {bed_id: plan.bed}
        self.explores = 0
        self.reset()

    def reset(self) -> None:
        self._plan: Affordance | None = None
        self._events = 0
        self._rejections = 0
        self._turns = 0
        self._last: PrimitiveAction | None = None
        self._seen: set[int] | None = None
        self._sent = False
        self._dropped = False

    def next_action(self, plan: Affordance, observation: Observation) -> SkillStep:
        assert isinstance(observation, HouseObservation), "TDW-MAT observes a HouseObservation"
        obs = observation
        for obj in obs.visible_objects:
            if obj.position is not None:
                self.positions[obj.id] = obj.position
        if plan is not self._plan:
            self.reset()
            self._plan = plan
            if plan.kind == EXPLORE:
                self.explores += 1
        if not obs.ready:
            return _run(WAIT)
        if self._last is not None and obs.last_action == self._last.text and not obs.last_action_ok:
            self._rejections += 1
            if self._last.kind in ("grasp", "put_in") or self._rejections >= self.max_rejections:
                return _end(SkillStatus.FAILED, obs.last_action_reason or "the world refused")
        if self._events >= self.max_events:
            return _end(SkillStatus.FAILED, f"no end after {self._events} events")
        skill = {GOTO: self._goto, EXPLORE: self._explore, GRAB: self._grab, PUT: self._put,
                 TRANSPORT: self._transport, SEND_MESSAGE: self._send}.get(plan.kind)
        if skill is None:
            return _end(SkillStatus.FAILED, f"no skill for {plan.kind!r}")
        step = skill(plan, obs)
        if step.action is not None:
            self._events += 1
            self._last = step.action
        return step

    # ------------------------------------------------------------------------------------------- helpers
    def _walk(self, obs: HouseObservation, goal: Point) -> SkillStep:
        heading = float(getattr(obs, "heading", 0.0))
        return _run(steer(self.plan, obs.position, heading, goal))

    def _new_in_view(self, obs: HouseObservation) -> list[str]:
        """Free targets, containers or the bed seen for the first time since the plan began."""
        ids = {o.id for o in obs.visible_objects if o.held_by is None and o.inside is None}
        if self._seen is None:
            self._seen = ids
            return []
        fresh = ids - self._seen
        self._seen |= ids
        return [o.label for o in obs.visible_objects if o.id in fresh]

    # ------------------------------------------------------------------------------------------- skills
    def _goto(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        room = self.plan.rooms.get(plan.target_id or -1)
        if room is None:
            return _end(SkillStatus.FAILED, f"no room ({plan.target_id})")
        if obs.room_id == room.id and distance(obs.position, room.center) <= ARRIVE_WITHIN:
            return _end(SkillStatus.DONE, f"in the {room.label}")
        fresh = self._new_in_view(obs)
        if fresh:
            return _end(SkillStatus.INTERRUPTED, f"saw {', '.join(fresh)}")
        return self._walk(obs, room.center)

    def _explore(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        room = self.plan.rooms.get(plan.target_id or -1)
        if room is None:
            return _end(SkillStatus.FAILED, f"no room ({plan.target_id})")
        if self._turns == 0 and distance(obs.position, room.center) > CENTRE_WITHIN:
            return self._walk(obs, room.center)
        rotates = not self.faithful_explore or self.explores <= 1
        if not rotates or self._turns >= SWEEP_TURNS:
            return _end(SkillStatus.DONE, f"explored the {room.label}")
        self._turns += 1
        return _run(PrimitiveAction(kind="turn_left"))

    def _grab(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        target_id = plan.target_id
        if target_id in obs.held_ids():
            return _end(SkillStatus.DONE, f"holding <{plan.target_name}> ({target_id})")
        if len([o for o in obs.holding if o.inside is None]) >= 2:
            return _end(SkillStatus.FAILED, "both hands are full")
        for partner in obs.partners:
            if any(o.id == target_id for o in partner.holding):
                return _end(SkillStatus.INTERRUPTED, f"{partner.name} has taken <{plan.target_name}>")
        position = self._position(plan)
        if position is None:
            room = self.plan.rooms.get(plan.room_id or -1)
            if room is None:
                return _end(SkillStatus.FAILED, f"where <{plan.target_name}> ({target_id}) is, is unknown")
            if distance(obs.position, room.center) <= TOLD_LOOK_WITHIN:
                return _end(SkillStatus.FAILED, f"<{plan.target_name}> ({target_id}) is not in sight")
            return self._walk(obs, room.center)
        if distance(obs.position, position) <= GRASP_WITHIN and not self._behind_wall(obs, plan):
            return _run(PrimitiveAction(kind="grasp", target_id=target_id, target_name=plan.target_name))
        return self._walk(obs, position)

    def _position(self, plan: Affordance) -> Point | None:
        """Where the object was last shown, unless that lies outside the room the belief places it in now (told
        of a move since): the belief's room is newer, and walking to the old spot would never reach it."""
        position = self.positions.get(plan.target_id if plan.target_id is not None else -1)
        if position is not None and plan.room_id is not None and self.plan.room_of(position) != plan.room_id:
            return None
        return position

    @staticmethod
    def _behind_wall(obs: HouseObservation, plan: Affordance) -> bool:
        """The object is believed in another room than mine: a grasp from here would be refused at once (the arm
        does not reach through walls), so the walk goes on, through the door if one is on the way, until I am in
        its room (its position lies in it, so walking to it gets there)."""
        return plan.room_id is not None and plan.room_id != obs.room_id

    def _put(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if self._last is not None and self._last.kind == "put_in":
            return _end(SkillStatus.DONE, "put in")
        return _run(PrimitiveAction(kind="put_in"))

    def _transport(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        hands = [o for o in obs.holding if o.inside is None]
        if not hands:
            return _end(SkillStatus.DONE if self._dropped else SkillStatus.FAILED,
                        "dropped everything at the bed" if self._dropped else "holding nothing")
        bed_room = self.plan.bed_room
        if obs.room_id != bed_room or distance(obs.position, self.plan.bed) > BED_WITHIN:
            return self._walk(obs, self.plan.bed)
        self._dropped = True
        return _run(PrimitiveAction(kind="drop", target_id=hands[0].id, target_name=hands[0].name))

    def _send(self, plan: Affordance, obs: HouseObservation) -> SkillStep:
        if self._sent:
            return _end(SkillStatus.DONE, "message sent")
        self._sent = True
        return _run(PrimitiveAction(kind=SEND_MESSAGE, message=plan.message or ""))
