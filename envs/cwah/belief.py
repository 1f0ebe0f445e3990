"""An agent's belief about a C-WAH house, built only from its own observations and what partners tell it.

Both the baselines and LLM agents keep one `CWAHBelief` per agent: call `update(observation)` every step,
record partners' reports with the `note_*` methods, and hand it to `CWAHAffordances.available`.
It remembers rooms explored, objects and containers seen (room, relation, last step), containers
checked, where partners were last seen and what they held, and counts goal progress.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from coopgraph.envs.capabilities import ProgressEvent
from coopgraph.envs.cwah import estimates
from coopgraph.envs.cwah.catalog import HOME_ROOM, ObjectKind
from coopgraph.envs.cwah.config import CWAHConfig
from coopgraph.envs.cwah.episode import DoorSpec, RoomSpec
from coopgraph.envs.cwah.layout import FloorPlan
from coopgraph.envs.cwah.progress import ProgressTracker
from coopgraph.envs.protocol import (
    Affordance,
    GoalPredicate,
    HouseObservation,
    Message,
    ObjectInfo,
    Observation,
    Point,
    RoomInfo,
)

if TYPE_CHECKING:
    from coopgraph.envs.cwah.env import CWAHAgentInfo


class KnownObject(BaseModel):
    """What the agent believes about one object; `room_id is None` means its whereabouts are unknown."""

    id: int
    name: str
    kind: str
    room_id: int | None = None
    position: Point | None = None
    inside: int | None = None
    on: int | None = None
    is_open: bool | None = None
    held_by: str | None = None
    last_seen_step: int = 0
    source: Literal["seen", "told"] = "seen"

    @property
    def label(self) -> str:
        return f"<{self.name}> ({self.id})"


def _whereabouts(obj: KnownObject) -> tuple[object, ...]:
    """What matters for planning: who holds it, or where it lies (a carried object's room keeps changing)."""
    return (obj.held_by,) if obj.held_by is not None else (obj.room_id, obj.inside, obj.on)


class PartnerState(BaseModel):
    """Where a partner was last seen (or said it was) and what it held."""

    agent_id: str
    name: str
    room_id: int | None = None
    position: Point | None = None
    holding: list[int] = []
    last_seen_step: int = -1
    last_heard_step: int = -1


class PartnerIntent(BaseModel):
    """A partner's announced or inferred subgoal, e.g. kind "gograb" on object 386."""

    kind: str
    target_id: int | None = None
    step: int = 0

    @property
    def verb(self) -> str:
        """The plan in a sentence: `gograb` reads "grab", `gocheck` "check"."""
        return self.kind.removeprefix("go")


class CWAHBelief:
    """One agent's semantic memory of the house and the task."""

    def __init__(self, agent_id: str, env_info: CWAHAgentInfo) -> None:
        self.agent_id = agent_id
        self.agent_name: str = env_info.agent_name
        self.goal: list[GoalPredicate] = list(env_info.goal)
        self.rooms: dict[int, RoomInfo] = {r.id: r for r in env_info.rooms}
        plan = env_info.floor_plan
        self.floor = FloorPlan(
            [RoomSpec.model_validate(r) for r in plan["rooms"]],
            [DoorSpec.model_validate(d) for d in plan["doors"]],
        )
        self.config: CWAHConfig = env_info.config
        self.goal_classes = {g.object_name for g in self.goal}
        self.objects: dict[int, KnownObject] = {}
        self.explored_rooms: set[int] = set()
        self.room_visits: dict[int, int] = {}
        self.checked_containers: dict[int, int] = {}
        self.partners: dict[str, PartnerState] = {
            a: PartnerState(agent_id=a, name=a.capitalize())
            for a in env_info.agents
            if a != agent_id
        }
        self.partner_intents: dict[str, PartnerIntent] = {}
        self.intent: PartnerIntent | None = None  # this agent's own announced subgoal
        self.messages: list[Message] = []
        self.step = 0
        self.room_id: int = next(iter(self.rooms))
        self.position: Point = (0.0, 0.0)
        self.holding: list[int] = []
        self.version = 0  # bumped whenever something goal-relevant changes
        self._progress = ProgressTracker()  # what `progress_events` already reported

    # ----------------------------------------------------------------- updates
    def _store(self, info: ObjectInfo, step: int, source: Literal["seen", "told"] = "seen") -> None:
        old = self.objects.get(info.id)
        new = KnownObject(
            id=info.id,
            name=info.name,
            kind=info.kind,
            room_id=info.room_id,
            position=info.position,
            inside=info.inside,
            on=info.on,
            is_open=info.is_open,
            held_by=info.held_by,
            last_seen_step=step,
            source=source,
        )
        if info.name in self.goal_classes and (old is None or _whereabouts(old) != _whereabouts(new)):
            self.version += 1
        self.objects[info.id] = new

    def _forget_location(self, obj: KnownObject) -> None:
        if obj.room_id is None and obj.held_by is None:
            return
        obj.room_id = obj.position = obj.inside = obj.on = obj.held_by = None
        if obj.name in self.goal_classes:
            self.version += 1

    def update(self, obs: Observation) -> None:
        """Fold one observation in: what is seen replaces what was believed about this room."""
        assert isinstance(obs, HouseObservation), "C-WAH observes a HouseObservation"
        self.step, self.room_id, self.position = obs.time, obs.room_id, obs.position
        if obs.room_id not in self.explored_rooms:
            self.explored_rooms.add(obs.room_id)
            self.version += 1
        self.room_visits[obs.room_id] = obs.time
        seen = {info.id for info in obs.visible_objects}
        for info in obs.visible_objects:
            self._store(info, obs.time)
            if info.kind == "container" and info.is_open:
                self.checked_containers[info.id] = obs.time
        open_here = {i for i in seen if self.objects[i].kind == "container" and self.objects[i].is_open}
        held = {info.id for info in obs.holding}
        for obj in self.objects.values():
            if obj.id in seen or obj.id in held or obj.kind != "item" or obj.room_id != obs.room_id:
                continue
            if obj.held_by is None and (obj.inside is None or obj.inside in open_here):
                self._forget_location(obj)  # it should be visible here and is not: someone moved it
        for info in obs.holding:
            self._store(info, obs.time)
        for old_id in set(self.holding) - held:
            if old_id not in seen and old_id in self.objects:
                self._forget_location(self.objects[old_id])
        self.holding = [info.id for info in obs.holding]
        for partner in obs.partners:
            state = self.partners.setdefault(
                partner.agent_id, PartnerState(agent_id=partner.agent_id, name=partner.name)
            )
            now_holding = [info.id for info in partner.holding]
            for old_id in set(state.holding) - set(now_holding):
                if (
                    old_id not in seen
                    and old_id in self.objects
                    and self.objects[old_id].held_by == partner.agent_id
                ):
                    self._forget_location(self.objects[old_id])
            state.room_id, state.position, state.holding = partner.room_id, partner.position, now_holding
            state.last_seen_step = obs.time
            for info in partner.holding:
                self._store(info, obs.time)
        if obs.messages:
            self.messages.extend(obs.messages)

    def note_object(
        self,
        object_id: int,
        name: str,
        kind: ObjectKind,
        room_id: int | None,
        *,
        inside: int | None = None,
        on: int | None = None,
        held_by: str | None = None,
    ) -> None:
        """Record a partner's report of an object's whereabouts (never overrides a sighting of this step)."""
        old = self.objects.get(object_id)
        if old is not None and old.source == "seen" and old.last_seen_step >= self.step:
            return
        if old is not None and old.kind != "item" and old.room_id is not None:
            return  # furniture never moves; what we saw is better than what we are told
        holder_id = inside if inside is not None else on
        holder = self.objects.get(holder_id) if holder_id is not None else None
        position = holder.position if holder is not None else None
        if holder is not None and holder.room_id is not None:
            room_id = holder.room_id
        self._store(
            ObjectInfo(
                id=object_id,
                name=name,
                kind=kind,
                room_id=room_id,
                position=position,  # type: ignore[arg-type]
                inside=inside,
                on=on,
                held_by=held_by,
                is_open=False if kind == "container" else None,
            ),
            self.step,
            "told",
        )

    def note_checked(self, container_id: int) -> None:
        """A partner reports having looked inside this container."""
        self.checked_containers.setdefault(container_id, self.step)

    def note_partner(
        self, agent_id: str, room_id: int | None = None, intent: PartnerIntent | None = None
    ) -> None:
        """Record what a partner said about where it is or what it will do next."""
        state = self.partners.setdefault(
            agent_id, PartnerState(agent_id=agent_id, name=agent_id.capitalize())
        )
        if room_id is not None:
            state.room_id, state.last_heard_step = room_id, self.step
        if intent is not None:
            self.partner_intents[agent_id] = intent
            self.version += 1

    # ----------------------------------------------------------------- queries
    def announced_grabs(self) -> set[int]:
        """Objects a partner said it is going to grab, unless this agent announced the same grab first."""
        mine = self.intent
        return {
            intent.target_id
            for agent_id, intent in self.partner_intents.items()
            if intent.kind == "gograb" and intent.target_id is not None
            and not (mine is not None and mine.kind == "gograb" and mine.target_id == intent.target_id
                     and (mine.step, self.agent_id) < (intent.step, agent_id))
        }

    def still_to_fetch(self, taken: Iterable[int] = ()) -> Counter[str]:
        """Per goal object class (in goal order), how many more someone has to pick up: what is not yet in place,
        less what this agent or a partner holds, what a partner said it goes to grab, and `taken` (a planner's
        own idea of what partners will see to)."""
        still: Counter[str] = Counter()
        for predicate in self.goal:
            still[predicate.object_name] += self.remaining(predicate)
        partners_hold = {i for p in self.partners.values() for i in p.holding}
        for object_id in set(self.holding) | partners_hold | self.announced_grabs() | set(taken):
            obj = self.objects.get(object_id)
            # Only what still serves an unfinished predicate: a partner last seen holding an object it has
            # since put in place (and told us so) must not count against what is still to fetch a second time.
            if obj is not None and still[obj.name] > 0 and self.predicate_for(obj) is not None:
                still[obj.name] -= 1
        return still

    def open_needs(self) -> Counter[str]:
        """What is still to fetch after MHP's idea of what partners will see to (`estimates.claimed`)."""
        return self.still_to_fetch(estimates.claimed(self))

    def free_partner_rooms(self, within: int) -> dict[int, str]:
        """Rooms other than mine where a partner with a free hand was seen or heard within the last `within`
        steps, each with that partner's name: it will likely take a goal object there before I arrive."""
        rooms: dict[int, str] = {}
        for partner in self.partners.values():
            last = max(partner.last_seen_step, partner.last_heard_step)
            if (partner.room_id is not None and partner.room_id != self.room_id and last >= 0
                    and self.step - last <= within and len(partner.holding) < self.config.hands):
                rooms.setdefault(partner.room_id, partner.name)
        return rooms

    def ranked_looks(self, options: list[Affordance]) -> list[Affordance]:
        """The checks and explores among `options`, the one worth most per step of walking first, by the
        estimate MHP picks its looks with (what is still to fetch after partners' claims, the common-sense
        prior off): lets a small planner's shortlist put the best look first."""
        return [option for _, _, option in estimates.ranked_looks(self, options, self.open_needs())]

    def look_before_put(self, options: list[Affordance]) -> Affordance | None:
        """The look among `options` worth taking on the way to a delivery, by MHP's rule (a hand free, the best
        look within half the walk to the put): lets a shortlist note it as `on the way`."""
        taken = estimates.claimed(self)
        return estimates.look_before_put(self, options, self.still_to_fetch(taken), taken=taken)

    def labels(self, ids: list[int]) -> str:
        """The known objects among `ids` as `<name> (id)`, comma-separated; "nothing" when none is known."""
        return ", ".join(self.objects[i].label for i in ids if i in self.objects) or "nothing"

    def label_of(self, target_id: int) -> str:
        """`<name> (id)` of a known object or room (an announced target may be either)."""
        if target_id in self.objects:
            return self.objects[target_id].label
        return self.rooms[target_id].label if target_id in self.rooms else f"({target_id})"

    def room_name(self, room_id: int | None) -> str:
        return self.rooms[room_id].name if room_id in self.rooms else "unknown"

    def distance(self, position: Point | None, room_id: int | None) -> float:
        """Walking metres from here to a point, or to the room's centre when only the room is known."""
        if room_id is None or room_id not in self.rooms:
            return float("inf")
        return self.walk_distance(self.position, self.room_id, position, room_id)

    def distance_to(self, obj: KnownObject) -> float:
        return self.distance(obj.position, obj.room_id)

    # ----------------------------------------------------------------- geometry (`spatial`, `objects`)
    @property
    def message_limit(self) -> int:
        """C-WAH cuts a message after `max_message_chars` (500 by default)."""
        return self.config.max_message_chars

    @property
    def walk_speed(self) -> float:
        """Metres walked per step."""
        return self.config.walk_speed

    @property
    def reach(self) -> float:
        """Metres within which an agent can open, grab or put."""
        return self.config.reach

    @property
    def hands(self) -> int:
        """Objects an agent can hold at once."""
        return self.config.hands

    def room_center(self, room_id: int | None) -> Point | None:
        return self.rooms[room_id].center if room_id in self.rooms else None

    def walk_distance(self, a: Point | None, room_a: int | None, b: Point | None, room_b: int | None) -> float:
        """Walking metres between two places through the doors (a room's centre stands in for an unknown point;
        a straight line where the floor plan knows no path); inf when a place is unknown. The one walking
        distance of C-WAH: MHP's costs, the affordances' distances and partners' estimates all come from it."""
        a = a or self.room_center(room_a)
        b = b or self.room_center(room_b)
        if a is None or b is None:
            return math.inf
        if room_a is not None and room_b is not None:
            try:
                return float(self.floor.distance(a, room_a, b, room_b))
            except (KeyError, TypeError, ValueError):  # a room the plan does not know, or no path to it
                pass
        return math.hypot(a[0] - b[0], a[1] - b[1])

    def point_along(self, a: Point, room_a: int | None, b: Point, room_b: int | None,
                    distance: float) -> tuple[Point, int | None]:
        """Where a walker from a to b is after `distance` metres, and in which room (through the doors when the
        floor plan knows the path, else in a straight line)."""
        waypoints: list[tuple[Point, int | None]] = [(b, room_b)]
        if room_a is not None and room_b is not None:
            try:
                _, path = self.floor.path(a, room_a, b, room_b)
                waypoints = [(w.position, w.room) for w in path]
            except (KeyError, TypeError, ValueError):
                pass
        here, room = a, room_a
        left = max(0.0, distance)
        for point, point_room in waypoints:
            leg = math.hypot(point[0] - here[0], point[1] - here[1])
            if leg >= left and leg > 0:
                f = left / leg
                return (here[0] + f * (point[0] - here[0]), here[1] + f * (point[1] - here[1])), room
            left -= leg
            here, room = point, point_room
        return here, room

    def satisfied(self, predicate: GoalPredicate) -> int:
        relation = "on" if predicate.relation == "ON" else "inside"
        return sum(
            1
            for obj in self.objects.values()
            if obj.name == predicate.object_name and getattr(obj, relation) == predicate.target_id
        )

    def remaining(self, predicate: GoalPredicate) -> int:
        return max(0, predicate.count - self.satisfied(predicate))

    def predicate_for(self, obj: KnownObject) -> GoalPredicate | None:
        """The unfinished predicate this object would serve, if it does not already serve one."""
        for predicate in self.goal:
            if predicate.object_name != obj.name:
                continue
            relation = obj.on if predicate.relation == "ON" else obj.inside
            if relation == predicate.target_id:
                return None
            if self.remaining(predicate) > 0:
                return predicate
        return None

    def goal_objects(self) -> list[KnownObject]:
        """Known, free goal objects not yet in place (candidates to grab), by id."""
        return [
            obj
            for obj in sorted(self.objects.values(), key=lambda o: o.id)
            if obj.kind == "item"
            and obj.room_id is not None
            and obj.held_by is None
            and self.predicate_for(obj) is not None
        ]

    def unexplored_rooms(self) -> list[int]:
        return [room_id for room_id in sorted(self.rooms) if room_id not in self.explored_rooms]

    def unseen_targets_usually_in(self, room_id: int) -> list[str]:
        """Goal targets (the furniture things go onto or into) not located yet whose usual room is this room's
        kind: common sense a large model brings to the prompt and a small one does not."""
        room = self.rooms.get(room_id)
        names = {p.target_name for p in self.goal
                 if (t := self.objects.get(p.target_id)) is None or t.room_id is None}
        return sorted(n for n in names if room is not None and HOME_ROOM.get(n) == room.name)

    def unchecked_containers(self) -> list[KnownObject]:
        return [
            obj
            for obj in sorted(self.objects.values(), key=lambda o: o.id)
            if obj.kind == "container" and obj.id not in self.checked_containers and obj.room_id is not None
        ]

    def is_done(self) -> bool:
        return all(self.remaining(p) == 0 for p in self.goal)

    # ----------------------------------------------------------------- progress
    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        """Goal objects known for the first time and subgoals whose count went up since the last call (the first
        call sets the baseline); `obs` tells whether this agent's own last action did it (see `cwah.progress`)."""
        return self._progress.events(self, obs)

    # ----------------------------------------------------------------- text
    def progress_text(self, include_all: bool = False) -> str:
        """A prompt-ready summary of hands, room, findings, partners and unexplored rooms.

        By default only what can matter for the goal is listed; `include_all` lists every item seen, as
        CoELA's prompts did, so irrelevant (e.g. Noisy-C-WAH dummy) objects reach the prompt too.
        """

        parts = [f"I'm holding {self.labels(self.holding)}."]
        done = [f"{self.satisfied(p)}/{p.count} {p.object_name}" for p in self.goal]
        parts.append(f"Believed progress: {', '.join(done)}.")
        for room_id in sorted(self.explored_rooms, key=lambda r: r != self.room_id):
            here = [o for o in self.objects.values() if o.room_id == room_id and o.held_by is None]
            found = [
                o.label
                for o in here
                if o.kind == "surface"
                or self.predicate_for(o) is not None
                or (o.kind == "item" and (include_all or o.name in self.goal_classes))
            ]
            unchecked = [
                o.label for o in here if o.kind == "container" and o.id not in self.checked_containers
            ]
            where = "I'm in" if room_id == self.room_id else "In"
            text = f"{where} the {self.rooms[room_id].label}, I found {', '.join(found) or 'no goal objects'}"
            parts.append(text + (f", and unchecked containers {', '.join(unchecked)}." if unchecked else "."))
        for partner in self.partners.values():
            if partner.last_seen_step >= 0:
                parts.append(
                    f"I last saw {partner.name} in the {self.room_name(partner.room_id)} at step "
                    f"{partner.last_seen_step}, holding {self.labels(partner.holding)}."
                )
        unexplored = [self.rooms[r].label for r in self.unexplored_rooms()]
        if unexplored:
            parts.append(f"Unexplored: {', '.join(unexplored)}.")
        return " ".join(parts)

    def brief_text(self) -> str:
        """The few facts a planner choosing from a shortlist needs, in a fraction of `progress_text`'s tokens:
        hands, what nobody holds, placed or said it goes for yet, where each partner was, what it said it goes for,
        unexplored rooms and how much furniture is known (the more, the less a single container is worth opening).
        Where things lie is left to the shortlist's options and their distances."""
        still = [f"{n} {name}" for name, n in self.still_to_fetch().items() if n > 0]
        parts = [f"I hold {self.labels(self.holding)}.", f"Still to fetch: {', '.join(still) or 'nothing'}."]
        for agent_id, partner in self.partners.items():
            if partner.last_seen_step >= 0:
                parts.append(f"{partner.name}: {self.room_name(partner.room_id)} at step {partner.last_seen_step}, "
                             f"holding {self.labels(partner.holding)}.")
            intent = self.partner_intents.get(agent_id)
            if intent is not None and intent.target_id is not None:
                parts.append(f"{partner.name} said at step {intent.step}: [{intent.kind}] "
                             f"{self.label_of(intent.target_id)}.")
        furniture = sum(1 for o in self.objects.values() if o.kind != "item")
        parts.append(f"Unexplored rooms: {len(self.unexplored_rooms())} of {len(self.rooms)}. "
                     f"Furniture seen: {furniture}.")
        return " ".join(parts)
