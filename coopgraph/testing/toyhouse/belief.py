"""One agent's belief about the toyhouse, built from its own observations and what partners tell it.

It implements the core `Belief` protocol and the `objects`, `goals`, `rooms`, `spatial`, `containers` and
`partners` capabilities (`coopgraph.envs.capabilities`). Call `update(observation)` every tick; the message
reader records partners' reports with the `note_*` methods.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coopgraph.envs.capabilities import ProgressEvent
from coopgraph.envs.protocol import (
    GoalPredicate,
    HouseObservation,
    ObjectInfo,
    Observation,
    Point,
    PrimitiveAction,
    RoomInfo,
)
from coopgraph.testing.toyhouse.grid import Cell, Grid
from coopgraph.testing.toyhouse.world import HouseRules

if TYPE_CHECKING:
    from coopgraph.testing.toyhouse.env import ToyhouseAgentInfo


@dataclass
class Known:
    """What the agent believes about one object; `room_id is None` means it does not know where it is."""

    id: int
    name: str
    kind: str
    room_id: int | None = None
    position: Point | None = None
    inside: int | None = None
    on: int | None = None
    is_open: bool | None = None
    held_by: str | None = None
    source: str = "seen"  # "seen" or "told"
    last_seen_step: int = 0

    @property
    def label(self) -> str:
        return f"<{self.name}> ({self.id})"


@dataclass
class PartnerNote:
    """Where a partner was last seen (or said it was) and what it held."""

    agent_id: str
    name: str
    room_id: int | None = None
    position: Point | None = None
    holding: list[int] = field(default_factory=list)
    last_seen_step: int = -1
    last_heard_step: int = -1


@dataclass(frozen=True)
class Intent:
    """An announced plan: the affordance kind (`fetch`, `open`, `visit`) and its target."""

    kind: str
    target_id: int | None
    step: int

    @property
    def verb(self) -> str:
        """The plan in a sentence: toyhouse's kinds are verbs already (`fetch`, `open`, `visit`)."""
        return self.kind


@dataclass
class _ProgressLog:
    found: set[int] = field(default_factory=set)
    done: dict[str, int] = field(default_factory=dict)
    started: bool = False


def _cell(point: Point) -> Cell:
    return (round(point[0]), round(point[1]))


class HouseBelief:
    """Semantic memory of the house and the task for one agent."""

    walk_speed: float = 1.0  # cells per tick
    reach: float = 0.0  # an agent touches only what is on its own cell

    def __init__(self, agent_id: str, env_info: ToyhouseAgentInfo) -> None:
        self.agent_id = agent_id
        self.agent_name: str = env_info.agent_name
        self.goal: list[GoalPredicate] = list(env_info.goal)
        self.goal_classes = {p.object_name for p in self.goal}
        self.rooms: dict[int, RoomInfo] = {r.id: r for r in env_info.rooms}
        self.grid: Grid = env_info.grid
        self.rules: HouseRules = env_info.config
        names: dict[str, str] = env_info.agent_names
        self.partners: dict[str, PartnerNote] = {
            a: PartnerNote(agent_id=a, name=names.get(a, a)) for a in env_info.agents if a != agent_id}
        self.partner_intents: dict[str, Intent] = {}
        self.intent: Intent | None = None  # this agent's own last announced plan
        self.objects: dict[int, Known] = {}
        self.holding: list[int] = []
        self.room_id: int = next(iter(self.rooms))
        self.position: Point = self.rooms[self.room_id].center
        self.step = 0
        self.explored_rooms: set[int] = set()
        self.room_visits: dict[int, int] = {}
        self.checked_containers: dict[int, int] = {}
        self._log = _ProgressLog()

    @property
    def hands(self) -> int:
        return self.rules.hands

    # ----------------------------------------------------------------- updates
    def _store(self, info: ObjectInfo, source: str = "seen") -> None:
        self.objects[info.id] = Known(id=info.id, name=info.name, kind=info.kind, room_id=info.room_id,
                                      position=info.position, inside=info.inside, on=info.on, is_open=info.is_open,
                                      held_by=info.held_by, source=source, last_seen_step=self.step)

    def _forget(self, object_id: int) -> None:
        obj = self.objects.get(object_id)
        if obj is not None:
            obj.room_id = obj.position = obj.inside = obj.on = obj.held_by = None

    def update(self, obs: Observation) -> None:
        """Fold one observation in: the whole room is in sight, so what is not seen here is not here."""
        assert isinstance(obs, HouseObservation), "the toyhouse observes a HouseObservation"
        self.step, self.room_id, self.position = obs.time, obs.room_id, obs.position
        self.explored_rooms.add(obs.room_id)
        self.room_visits[obs.room_id] = obs.time
        seen = {info.id for info in obs.visible_objects}
        for info in obs.visible_objects:
            self._store(info)
            if info.kind == "container" and info.is_open:
                self.checked_containers.setdefault(info.id, obs.time)
        held = [info.id for info in obs.holding]
        for obj in self.objects.values():
            shut_in = obj.inside is not None and not self._is_open(obj.inside)
            if (obj.kind == "item" and obj.room_id == obs.room_id and obj.held_by is None and not shut_in
                    and obj.id not in seen and obj.id not in held):
                self._forget(obj.id)  # the room is in sight and it is not: someone moved it
        for old in set(self.holding) - set(held):
            if old not in seen:
                self._forget(old)
        for info in obs.holding:
            self._store(info)
        self.holding = held
        for partner in obs.partners:
            note = self.partners.setdefault(partner.agent_id, PartnerNote(partner.agent_id, partner.name))
            now = [info.id for info in partner.holding]
            for old in set(note.holding) - set(now):
                if old not in seen and old in self.objects and self.objects[old].held_by == partner.agent_id:
                    self._forget(old)
            note.room_id, note.position, note.holding, note.last_seen_step = partner.room_id, partner.position, now, \
                obs.time
            for info in partner.holding:
                self._store(info)

    def _is_open(self, container_id: int) -> bool:
        container = self.objects.get(container_id)
        return bool(container and container.is_open)

    def note_object(self, object_id: int, name: str, kind: str, room_id: int | None, *, inside: int | None = None,
                    on: int | None = None, held_by: str | None = None) -> None:
        """A partner's report of where a thing is; a sighting of this tick, or furniture seen, wins."""
        old = self.objects.get(object_id)
        if old is not None and old.source == "seen" and (old.last_seen_step >= self.step or old.kind != "item"):
            return
        holder_id = inside if inside is not None else on
        holder = self.objects.get(holder_id) if holder_id is not None else None
        if holder is not None and holder.room_id is not None:
            room_id = holder.room_id
        position = holder.position if holder is not None else None
        self.objects[object_id] = Known(id=object_id, name=name, kind=kind, room_id=room_id, position=position,
                                        inside=inside, on=on, held_by=held_by, source="told", last_seen_step=self.step,
                                        is_open=old.is_open if old is not None else None)

    def note_checked(self, container_id: int) -> None:
        """A partner reports having looked inside this container."""
        self.checked_containers.setdefault(container_id, self.step)

    def note_partner(self, agent_id: str, room_id: int | None = None, intent: Intent | None = None) -> None:
        note = self.partners.setdefault(agent_id, PartnerNote(agent_id, agent_id))
        if room_id is not None:
            note.room_id, note.last_heard_step = room_id, self.step
        if intent is not None:
            self.partner_intents[agent_id] = intent

    # ----------------------------------------------------------------- queries
    def label_of(self, target_id: int) -> str:
        if target_id in self.objects:
            return self.objects[target_id].label
        return self.rooms[target_id].label if target_id in self.rooms else f"({target_id})"

    def labels(self, ids: list[int]) -> str:
        return ", ".join(self.label_of(i) for i in ids) or "nothing"

    def room_name(self, room_id: int | None) -> str:
        return self.rooms[room_id].name if room_id in self.rooms else "unknown"

    def walk_distance(self, a: Point | None, room_a: int | None, b: Point | None, room_b: int | None) -> float:
        """Cells walked between two places (a room's centre stands in for an unknown point); inf if unknown."""
        if (a is None and room_a not in self.rooms) or (b is None and room_b not in self.rooms):
            return float("inf")
        start = _cell(a if a is not None else self.rooms[room_a].center)  # type: ignore[index]
        end = _cell(b if b is not None else self.rooms[room_b].center)  # type: ignore[index]
        return float(self.grid.distance(start, end))

    def point_along(self, a: Point, room_a: int | None, b: Point, room_b: int | None,
                    distance: float) -> tuple[Point, int | None]:
        cell = self.grid.point_along(_cell(a), _cell(b), int(distance))
        return (float(cell[0]), float(cell[1])), self.grid.room_of(cell)

    def cells_to(self, obj: Known) -> float:
        """Cells from here to a known thing (to its room's centre when only the room is known)."""
        return self.walk_distance(self.position, self.room_id, obj.position, obj.room_id)

    def cells_to_room(self, room_id: int) -> int:
        return self.grid.cells_to_room(_cell(self.position), room_id)

    def satisfied(self, predicate: GoalPredicate) -> int:
        return sum(1 for o in self.objects.values() if o.name == predicate.object_name
                   and (o.on if predicate.relation == "ON" else o.inside) == predicate.target_id)

    def remaining(self, predicate: GoalPredicate) -> int:
        return max(0, predicate.count - self.satisfied(predicate))

    def predicate_for(self, obj: Known) -> GoalPredicate | None:
        """The unfinished predicate this object would serve, unless it already serves one."""
        for predicate in self.goal:
            if predicate.object_name != obj.name:
                continue
            if (obj.on if predicate.relation == "ON" else obj.inside) == predicate.target_id:
                return None
            if self.remaining(predicate) > 0:
                return predicate
        return None

    def goal_objects(self) -> list[Known]:
        """Known, located, free items that still serve an unfinished predicate, by id."""
        return [o for o in sorted(self.objects.values(), key=lambda o: o.id)
                if o.kind == "item" and o.room_id is not None and o.held_by is None and self.predicate_for(o)]

    def still_to_fetch(self) -> Counter[str]:
        """Per goal item name, how many more someone has to pick up: not yet in place, less what anyone holds or
        a partner announced it fetches."""
        still: Counter[str] = Counter()
        for predicate in self.goal:
            still[predicate.object_name] += self.remaining(predicate)
        covered = set(self.holding) | {i for p in self.partners.values() for i in p.holding}
        covered |= {i.target_id for i in self.partner_intents.values() if i.kind == "fetch" and i.target_id}
        for object_id in covered:
            obj = self.objects.get(object_id)
            if obj is not None and still[obj.name] > 0 and self.predicate_for(obj) is not None:
                still[obj.name] -= 1
        return still

    def unexplored_rooms(self) -> list[int]:
        return [r for r in sorted(self.rooms) if r not in self.explored_rooms]

    def closed_containers(self) -> list[Known]:
        """Containers seen or told of, located, that nobody has looked into yet."""
        return [o for o in sorted(self.objects.values(), key=lambda o: o.id)
                if o.kind == "container" and o.room_id is not None and o.id not in self.checked_containers]

    def is_done(self) -> bool:
        return all(self.remaining(p) == 0 for p in self.goal)

    # ----------------------------------------------------------------- text
    def whereabouts(self, obj: Known) -> str:
        holder_id = obj.inside if obj.inside is not None else obj.on
        if holder_id is not None:
            return f"{'in' if obj.inside is not None else 'on'} {self.label_of(holder_id)}"
        return "on the floor" if obj.room_id is not None else "somewhere unknown"

    def progress_text(self, include_all: bool = False) -> str:
        """Hand, goal progress, what is known room by room, partners and rooms not visited; `include_all` also
        lists items no goal needs."""
        done = ", ".join(f"{self.satisfied(p)}/{p.count} {p.object_name} {'onto' if p.relation == 'ON' else 'into'} "
                         f"<{p.target_name}> ({p.target_id})" for p in self.goal)
        parts = [f"I hold {self.labels(self.holding)} "
                 f"({self.hands} hand{'s' if self.hands > 1 else ''}).", f"Done: {done}."]
        for room_id in sorted(self.explored_rooms, key=lambda r: r != self.room_id):
            here = [o for o in self.objects.values() if o.room_id == room_id and o.held_by is None]
            things = [f"{o.label} {'open' if o.is_open or o.id in self.checked_containers else 'closed'}"
                      if o.kind == "container" else o.label for o in here if o.kind != "item"]
            things += [f"{o.label} {self.whereabouts(o)}" for o in here
                       if o.kind == "item" and (include_all or o.name in self.goal_classes)]
            where = "I'm in" if room_id == self.room_id else "In"
            parts.append(f"{where} the {self.rooms[room_id].label}: {', '.join(things) or 'nothing of use'}.")
        for agent_id, partner in self.partners.items():
            if partner.last_seen_step >= 0:
                parts.append(f"I last saw {partner.name} in the {self.room_name(partner.room_id)} at tick "
                             f"{partner.last_seen_step}, holding {self.labels(partner.holding)}.")
            intent = self.partner_intents.get(agent_id)
            if intent is not None and intent.target_id is not None:
                parts.append(f"{partner.name} said at tick {intent.step}: [{intent.kind}] "
                             f"{self.label_of(intent.target_id)}.")
        unexplored = [self.rooms[r].label for r in self.unexplored_rooms()]
        if unexplored:
            parts.append(f"Not visited yet: {', '.join(unexplored)}.")
        return " ".join(parts)

    @property
    def message_limit(self) -> int:
        """The toy house cuts a message after `max_message_chars` (300 by default)."""
        return self.rules.max_message_chars

    def brief_text(self) -> str:
        """What is left to fetch, the hand, partners and how much is still unseen, in a few lines."""
        still = [f"{n} {name}" for name, n in self.still_to_fetch().items() if n > 0]
        parts = [f"I hold {self.labels(self.holding)} ({self.hands} hand{'s' if self.hands > 1 else ''}).",
                 f"Still to fetch: {', '.join(still) or 'nothing'}."]
        for agent_id, partner in self.partners.items():
            if partner.last_seen_step >= 0:
                parts.append(f"{partner.name}: {self.room_name(partner.room_id)} at tick {partner.last_seen_step}, "
                             f"holding {self.labels(partner.holding)}.")
            intent = self.partner_intents.get(agent_id)
            if intent is not None and intent.target_id is not None:
                parts.append(f"{partner.name} said: [{intent.kind}] {self.label_of(intent.target_id)}.")
        parts.append(f"Rooms not visited: {len(self.unexplored_rooms())} of {len(self.rooms)}. "
                     f"Closed containers known: {len(self.closed_containers())}.")
        return " ".join(parts)

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        """A goal item known for the first time, or a goal count going up; the first call sets the baseline."""
        log, events = self._log, []
        for obj in self.goal_objects():
            if obj.id not in log.found:
                log.found.add(obj.id)
                if log.started:
                    events.append(ProgressEvent("discovery", f"found {obj.label} {self.whereabouts(obj)}",
                                                own=obj.source == "seen"))
        for predicate in self.goal:
            key = f"{predicate.relation}:{predicate.object_name}:{predicate.target_id}"
            count = min(self.satisfied(predicate), predicate.count)
            if count <= log.done.get(key, 0):
                continue
            log.done[key] = count
            if not log.started:
                continue
            relation, target = predicate.relation.lower(), f"<{predicate.target_name}> ({predicate.target_id})"
            put = self._my_drop(obs, predicate)
            text = (f"put {put} {relation} {target}, {count}/{predicate.count} done" if put
                    else f"{count}/{predicate.count} {predicate.object_name} {relation} {target}")
            events.append(ProgressEvent("subgoal", text, own=put is not None))
        log.started = True
        return events

    def _my_drop(self, obs: Observation, predicate: GoalPredicate) -> str | None:
        """The item's label when this agent's own last action put it where `predicate` wants it."""
        if not (obs.last_action_ok and (obs.last_action or "").startswith("[drop]")):
            return None
        action = PrimitiveAction.parse(obs.last_action or "")
        item = self.objects.get(action.object_id) if action.object_id is not None else None
        if action.target_id != predicate.target_id or item is None or item.name != predicate.object_name:
            return None
        return item.label
