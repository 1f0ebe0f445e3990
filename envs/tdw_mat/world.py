"""The state of a TDW-MAT episode and its primitives, each costing the frames TDW would spend on it.

An action is checked when it starts and takes effect when its frames have passed (`World.advance` runs the
clock to the next action that ends), so a partner may take an object between a grasp's start and its end, and
the grasp then fails. Positions are metres on the floor (x, z); headings are degrees, 0 facing +z.

A thing is in the room its position lies in: TDW's rooms are regions of the scene, and its arm reaches what is near
whatever the dataset's metadata says. Where the metadata records another room type (three objects of the shipped
splits, each a few centimetres past a boundary of the rebuilt rooms: `room_audit`), the position wins.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from coopgraph.envs.protocol import SEND_MESSAGE, AffordanceGroup, Message, PrimitiveAction
from coopgraph.envs.tdw_mat.episode import TDWEpisode
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, Point, distance
from coopgraph.envs.tdw_mat.rules import TDWRules

#: The bed has no id in the dataset; rooms are 1000, 2000, ... and objects have eight-digit ids.
BED_ID = 10
AGENT_IDS = ("alice", "bob", "charlie", "david")
#: The primitives, TDW's action types 0-6 in words, plus an idle wait.
PRIMITIVES = ("move_forward", "turn_left", "turn_right", "grasp", "put_in", "drop", SEND_MESSAGE, "wait")


@dataclass
class Thing:
    """A target, container or the bed; where a held or contained thing is follows its holder."""

    id: int
    name: str
    kind: Literal["target", "container", "bed"]
    position: Point
    room_id: int
    holder: str | None = None
    inside: int | None = None
    contents: list[int] = field(default_factory=list)
    delivered: bool = False
    lost: bool = False  # a container left at the bed: transported, out of play


class FailureCause(StrEnum):
    """What a refused grasp says about the object itself, typed so a belief need not read the English reason.

    Only refusals that tell where the object is (or is not) have a cause; a hand too full says nothing about it.
    `ELSEWHERE` says the object is not within the grasper's reach from where it stands (another room, or beyond the
    grasp range): a belief that placed it within reach learns that its place is wrong."""

    HELD = "held"  # an agent holds it
    INSIDE = "inside"  # it is in a container
    TRANSPORTED = "transported"  # it is at the bed (a target counted, or a container left there)
    ELSEWHERE = "elsewhere"  # not within reach of the grasper: in another room, or beyond the grasp range


@dataclass
class Outcome:
    """What one primitive did: whether it worked, why not (`reason` in words, `cause` typed), its frames, and what
    it touched."""

    action: PrimitiveAction
    cost: int
    ok: bool = True
    reason: str = ""
    group: AffordanceGroup | None = None
    message: Message | None = None
    cause: FailureCause | None = None


@dataclass
class Body:
    """One agent in the house."""

    id: str
    name: str
    position: Point
    heading: float
    room_id: int
    hands: list[int | None] = field(default_factory=lambda: [None, None])
    busy_until: int = 0
    effect: Callable[[], Outcome] | None = None
    running: Outcome | None = None
    last: Outcome | None = None
    inbox: list[Message] = field(default_factory=list)
    messages_sent: int = 0
    characters_sent: int = 0
    invalid_actions: int = 0
    metres_walked: float = 0.0

    def held(self) -> list[int]:
        return [h for h in self.hands if h is not None]


def bearing(a: Point, b: Point) -> float:
    """Heading (degrees, 0 = +z) from a to b."""
    return math.degrees(math.atan2(b[0] - a[0], b[1] - a[1]))


def angle_between(heading: float, target: float) -> float:
    """Signed smallest difference target - heading, in (-180, 180]."""
    return (target - heading + 180.0) % 360.0 - 180.0


class World:
    """Things, agents and the frame clock of one episode."""

    def __init__(self, episode: TDWEpisode, plan: FloorPlan, agent_ids: list[str], rules: TDWRules) -> None:
        self.episode, self.plan, self.rules = episode, plan, rules
        self.time = 0
        self.things: dict[int, Thing] = {BED_ID: Thing(BED_ID, "bed", "bed", plan.bed, plan.bed_room)}
        for obj in episode.objects:  # a thing is in the room it lies in, whatever type the metadata records
            self.things[obj.id] = Thing(obj.id, obj.name, obj.kind, obj.position, plan.room_of(obj.position))
        self.targets = [o.id for o in episode.targets]
        self.agents: dict[str, Body] = {}
        for index, agent_id in enumerate(agent_ids):
            start = self._start(index)
            self.agents[agent_id] = Body(agent_id, agent_id.capitalize(), start, 0.0, plan.room_of(start))

    def _start(self, index: int) -> Point:
        """The dataset gives two starts; a third or fourth agent starts half a metre beside one of them."""
        starts = self.episode.starts
        base = starts[index % len(starts)]
        shift = 0.5 * (index // len(starts))
        return self.plan.clamp((base[0] + shift, base[1]))

    # ----------------------------------------------------------------------------------------- where things are
    def where(self, thing: Thing) -> tuple[Point, int]:
        """Position and room of a thing, following whoever or whatever holds it."""
        if thing.inside is not None:
            return self.where(self.things[thing.inside])
        if thing.holder is not None:
            body = self.agents[thing.holder]
            return body.position, body.room_id
        return thing.position, thing.room_id

    def in_goal_zone(self, thing: Thing) -> bool:
        position, room = self.where(thing)
        return (self.plan.rooms[room].type == "Bedroom"
                and distance(position, self.plan.bed) < self.rules.goal_radius)

    def check_goal(self) -> None:
        """Targets near the bed in the bedroom count, held or not, and stay counted."""
        for target_id in self.targets:
            thing = self.things[target_id]
            if not thing.delivered and self.in_goal_zone(thing):
                thing.delivered = True

    def delivered(self) -> int:
        return sum(self.things[t].delivered for t in self.targets)

    def is_done(self) -> bool:
        return self.delivered() == len(self.targets) or self.time >= self.rules.max_frames

    def ready(self, agent_id: str) -> bool:
        return self.agents[agent_id].busy_until <= self.time

    # ----------------------------------------------------------------------------------------- starting actions
    def start(self, agent_id: str, action: PrimitiveAction) -> Outcome:
        """Check `action` now, charge its frames, and keep its effect for when they have passed."""
        body = self.agents[agent_id]
        outcome, effect = self._plan(body, action)
        if not outcome.ok:
            body.invalid_actions += 1
        body.running, body.effect = outcome, effect
        body.busy_until = self.time + outcome.cost
        if outcome.message is not None:
            body.messages_sent += 1
            body.characters_sent += len(outcome.message.text)
            for other in self.agents.values():
                if outcome.message.reaches(other.id):
                    other.inbox.append(outcome.message)
        return outcome

    def reject(self, agent_id: str, reason: str) -> Outcome:
        """An unreadable action: it spends one frame, changes nothing and says why."""
        body = self.agents[agent_id]
        outcome = Outcome(PrimitiveAction(kind="wait"), self.rules.frames_invalid, ok=False, reason=reason)
        body.invalid_actions += 1
        body.running, body.effect, body.busy_until = outcome, None, self.time + outcome.cost
        return outcome

    def _plan(self, body: Body, action: PrimitiveAction) -> tuple[Outcome, Callable[[], Outcome] | None]:
        rules, kind = self.rules, action.kind
        fail = Outcome(action, rules.frames_invalid, ok=False)
        if kind == "move_forward":
            return Outcome(action, rules.frames_per_move), lambda: self._move(body, action)
        if kind in ("turn_left", "turn_right"):
            sign = -1.0 if kind == "turn_left" else 1.0
            return Outcome(action, rules.frames_per_turn), lambda: self._turn(body, action, sign)
        if kind == "wait":
            return Outcome(action, rules.frames_wait), None
        if kind == SEND_MESSAGE and action.recipient is not None and (
                action.recipient == body.id or action.recipient not in self.agents):
            partners = ", ".join(a for a in self.agents if a != body.id) or "(none)"
            return Outcome(action, rules.frames_invalid, ok=False,
                           reason=f"no partner {action.recipient!r} to address; partners: {partners}"), None
        if kind == SEND_MESSAGE:
            text = (action.message or "").strip()
            limit = rules.max_message_chars
            message = Message(sender=body.id, text=text[:limit], step=self.time, truncated=len(text) > limit,
                              to=action.recipient)
            return Outcome(action, rules.message_frames(message.text), group=AffordanceGroup.COMMUNICATE,
                           message=message), None
        if kind == "grasp":
            return self._plan_grasp(body, action, fail)
        if kind == "put_in":
            return self._plan_put(body, action, fail)
        if kind == "drop":
            return self._plan_drop(body, action, fail)
        fail.reason = f"unknown action [{kind}]; actions: {', '.join(f'[{k}]' for k in PRIMITIVES)}"
        return fail, None

    def _plan_grasp(self, body: Body, action: PrimitiveAction, fail: Outcome
                    ) -> tuple[Outcome, Callable[[], Outcome] | None]:
        thing = self.things.get(action.target_id) if action.target_id is not None else None
        problem, cause = self._grasp_problem(body, thing)
        if problem or thing is None:
            fail.reason, fail.cause = problem or "nothing to grasp", cause
            return fail, None
        walk = max(distance(body.position, thing.position) - self.rules.grasp_arrive, 0.0)
        cost = math.ceil(walk / self.rules.metres_per_frame) + self.rules.frames_grasp
        return Outcome(action, cost, group=AffordanceGroup.FETCH), lambda: self._grasp(body, action, thing, walk)

    def _grasp_problem(self, body: Body, thing: Thing | None) -> tuple[str, FailureCause | None]:
        """Why `body` cannot start grasping `thing` ("" when it can), and what that says about the thing."""
        if thing is None or thing.kind == "bed":
            return "no such object to grasp", None
        if None not in body.hands:
            return "both hands are full", None
        label = f"<{thing.name}> ({thing.id})"
        if thing.lost or thing.delivered:
            return f"{label} is already transported", FailureCause.TRANSPORTED
        if thing.holder is not None:
            return f"{label} is held", FailureCause.HELD
        if thing.inside is not None:
            return f"{label} is inside a container", FailureCause.INSIDE
        if thing.room_id != body.room_id:  # a wall between: the arm does not reach through it
            return (f"{label} is in the {self.plan.rooms[thing.room_id].label}, another room than "
                    f"the {self.plan.rooms[body.room_id].label} you are in"), FailureCause.ELSEWHERE
        away = distance(body.position, thing.position)
        if away > self.rules.grasp_range:
            return (f"{label} is out of reach: {away:.1f} m away, the grasp range is "
                    f"{self.rules.grasp_range:g} m"), FailureCause.ELSEWHERE
        return "", None

    def _plan_put(self, body: Body, action: PrimitiveAction, fail: Outcome
                  ) -> tuple[Outcome, Callable[[], Outcome] | None]:
        held = [self.things[h] for h in body.held()]
        containers = [t for t in held if t.kind == "container"]
        targets = [t for t in held if t.kind == "target"]
        if not containers or not targets:
            fail.reason = "put in needs a container in one hand and a target in the other"
            return fail, None
        container, target = containers[0], targets[0]
        if len(container.contents) >= self.rules.container_capacity:
            return Outcome(action, self.rules.frames_put_in, ok=False,
                           reason=f"<{container.name}> ({container.id}) already holds "
                                  f"{self.rules.container_capacity} objects"), None
        return Outcome(action, self.rules.frames_put_in), lambda: self._put(body, action, container, target)

    def _plan_drop(self, body: Body, action: PrimitiveAction, fail: Outcome
                   ) -> tuple[Outcome, Callable[[], Outcome] | None]:
        held = body.held()
        if action.target_id is not None and action.target_id not in held:
            fail.reason = f"not holding ({action.target_id})"
            return fail, None
        if not held:
            fail.reason = "nothing to drop"
            return fail, None
        thing = self.things[action.target_id if action.target_id is not None else held[0]]
        group = AffordanceGroup.DELIVER if self.in_goal_zone(thing) else None
        return Outcome(action, self.rules.frames_drop, group=group), lambda: self._drop(body, action, thing)

    # ----------------------------------------------------------------------------------------- effects
    def _move(self, body: Body, action: PrimitiveAction) -> Outcome:
        step = self.rules.step_length
        radians = math.radians(body.heading)
        target = self.plan.clamp((body.position[0] + step * math.sin(radians),
                                  body.position[1] + step * math.cos(radians)))
        body.metres_walked += distance(body.position, target)
        body.position = (round(target[0], 4), round(target[1], 4))
        body.room_id = self.plan.room_of(body.position)
        return Outcome(action, self.rules.frames_per_move)

    def _turn(self, body: Body, action: PrimitiveAction, sign: float) -> Outcome:
        body.heading = (body.heading + sign * self.rules.turn_degrees + 180.0) % 360.0 - 180.0
        return Outcome(action, self.rules.frames_per_turn)

    def _grasp(self, body: Body, action: PrimitiveAction, thing: Thing, walk: float) -> Outcome:
        cost = body.running.cost if body.running else 0
        if thing.holder is not None or thing.lost or thing.inside is not None or None not in body.hands:
            return Outcome(action, cost, ok=False, reason=f"<{thing.name}> ({thing.id}) was taken first",
                           cause=self._taken_cause(thing))
        if walk > 0:
            d = distance(body.position, thing.position)
            fraction = walk / d
            body.position = (round(body.position[0] + (thing.position[0] - body.position[0]) * fraction, 4),
                             round(body.position[1] + (thing.position[1] - body.position[1]) * fraction, 4))
            body.metres_walked += walk
            body.room_id = self.plan.room_of(body.position)
        body.heading = round(bearing(body.position, thing.position) / 15.0) * 15.0
        body.hands[body.hands.index(None)] = thing.id
        thing.holder = body.id
        return Outcome(action, cost, group=AffordanceGroup.FETCH)

    @staticmethod
    def _taken_cause(thing: Thing) -> FailureCause | None:
        """Where a thing went that was taken while a grasp of it was under way (None: this agent's hands filled)."""
        if thing.lost:
            return FailureCause.TRANSPORTED
        if thing.holder is not None:
            return FailureCause.HELD
        return FailureCause.INSIDE if thing.inside is not None else None

    def _put(self, body: Body, action: PrimitiveAction, container: Thing, target: Thing) -> Outcome:
        body.hands[body.hands.index(target.id)] = None
        target.holder, target.inside = None, container.id
        container.contents.append(target.id)
        return Outcome(action, self.rules.frames_put_in)

    def _drop(self, body: Body, action: PrimitiveAction, thing: Thing) -> Outcome:
        body.hands[body.hands.index(thing.id)] = None
        thing.holder, thing.position, thing.room_id = None, body.position, body.room_id
        for inner in thing.contents:
            self.things[inner].position, self.things[inner].room_id = body.position, body.room_id
        in_zone = self.in_goal_zone(thing)
        if thing.kind == "container" and in_zone:
            thing.lost = True
        return Outcome(action, self.rules.frames_drop, group=AffordanceGroup.DELIVER if in_zone else None)

    # ----------------------------------------------------------------------------------------- the clock
    def advance(self) -> list[str]:
        """Run the clock to the first moment an agent's action ends (not past the horizon); apply what ended."""
        ends = [b.busy_until for b in self.agents.values()]
        self.time = min(max(min(ends), self.time), self.rules.max_frames)
        finished = []
        for body in self.agents.values():
            if body.busy_until <= self.time and body.running is not None:
                outcome = body.effect() if body.effect is not None else body.running
                if not outcome.ok and body.running.ok:
                    body.invalid_actions += 1
                body.last, body.running, body.effect = outcome, None, None
                finished.append(body.id)
        self.check_goal()
        return finished
