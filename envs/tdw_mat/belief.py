"""What one TDW-MAT agent believes: rooms explored none/part/all, objects with where and when seen or told, its
hands and containers, the bed, the partners' last room and holdings, and which targets are at the bed.

A target is believed transported when it was last known in the goal zone (the bedroom, within 3 m of the bed),
which is the world's own rule; a room is `all` explored after 16 turns in place there (an explore's sweep),
`part` once the agent has stood in it. `progress_text` follows the layout of CoELA's `progress2text`.
TDW-MAT's containers are open baskets and trays, so a container seen is a container looked inside
(`checked_containers`); what a partner said it goes to grab is kept as its intent (`partner_intents`).

The belief also learns from what fails and from what is not seen. A grasp the world refuses because the object is
held, in a container or already transported (`last_action_cause`) marks it taken by someone (place unknown) or
transported, until it is seen free again; one refused because the object is not within reach (in another room, or
too far) while the belief placed it within reach of the agent forgets its place, until it is seen again. A place
seen in the agent's view (with the detector, only within `NEAR`) where a remembered object is not seen is
forgotten, as CoELA's semantic map is rebuilt from each frame: at once with the oracle, which misses nothing;
with the detector, which misses an object on any look with its class's `p_miss`, once so many looks have missed it
that it would still be there with a chance under `STILL_THERE_BELOW`. A place told by a partner is a room, looked
for from its centre: standing within `TOLD_LOOK_WITHIN` of it without seeing the object forgets it there and rules
that room out until a sighting or a message sent after the look. The object is still known, at an unknown place,
and an unknown place is listed nowhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coopgraph.envs.capabilities import DISCOVERY, SUBGOAL, ProgressEvent
from coopgraph.envs.protocol import GoalPredicate, HouseObservation, Observation, Point, PrimitiveAction, RoomInfo
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, distance
from coopgraph.envs.tdw_mat.observation import TDWObservation
from coopgraph.envs.tdw_mat.perception import NEAR, in_view_from
from coopgraph.envs.tdw_mat.rules import TDWRules
from coopgraph.envs.tdw_mat.world import FailureCause

if TYPE_CHECKING:
    from coopgraph.envs.tdw_mat.env import TDWAgentInfo

#: Left turns in place that sweep a room (16 x 15 = 240 degrees): the room is then explored `all`.
SWEEP_TURNS = 16
#: `held_by` of an object a refused grasp said is held or in a container: someone else has it, who is not said.
SOMEONE = "someone"
#: A remembered place whose object went unseen on looks that together had less than this chance of all missing it
#: is forgotten (the oracle: the first look; the detector's food, p_miss 0.845: 18 looks; its stuff: 44).
STILL_THERE_BELOW = 0.05
#: A place told by a partner is a room, not a spot: the skill book's go-grab looks for the object from within this
#: many metres of the room's centre, and standing there without seeing it is what rules the room out.
TOLD_LOOK_WITHIN = 1.0


@dataclass
class Known:
    """One object as believed (the `KnownObject` view): where and when it was last seen or told of."""

    id: int
    name: str
    kind: str  # item (a target), container, surface (the bed)
    room_id: int | None = None
    position: Point | None = None
    inside: int | None = None
    on: int | None = None
    held_by: str | None = None
    source: str = "seen"  # or "told"
    last_seen_step: int = 0

    @property
    def label(self) -> str:
        return f"<{self.name}> ({self.id})"


@dataclass(frozen=True)
class PartnerIntent:
    """A partner's announced subgoal (the `IntentView`): TDW-MAT's action kind and its target."""

    kind: str
    target_id: int | None
    step: int

    @property
    def verb(self) -> str:
        """`gograb` reads "grab" in a sentence."""
        return self.kind.removeprefix("go")


@dataclass
class Partner:
    """A partner as last seen or heard of (the `PartnerView`)."""

    agent_id: str
    name: str
    room_id: int | None = None
    position: Point | None = None
    holding: list[int] = field(default_factory=list)
    holding_all: list[int] = field(default_factory=list)  # its hands and what is in a container it holds
    last_seen_step: int = -1
    last_heard_step: int = -1


class TDWBelief:
    """Semantic memory of one agent; declares `objects`, `goals`, `rooms`, `spatial`, `containers`, `partners`."""

    def __init__(self, agent_id: str, env_info: TDWAgentInfo) -> None:
        self.agent_id = agent_id
        self.name: str = env_info.agent_name
        self.task: str = env_info.task
        self.plan: FloorPlan = env_info.floorplan
        self.rules: TDWRules = env_info.rules
        self.goal: list[GoalPredicate] = list(env_info.goal)
        self.bed_id: int = env_info.bed_id
        self.rooms: dict[int, RoomInfo] = {r.id: r for r in env_info.rooms}
        self.explored: dict[int, str] = dict.fromkeys(self.rooms, "none")
        self.objects: dict[int, Known] = {}
        self.hand_items: list[int] = []
        self.contents: dict[int, list[int]] = {}
        self.transported: set[int] = set()
        self.partners: dict[str, Partner] = {a: Partner(a, n) for a, n in env_info.agent_names.items()
                                             if a != agent_id}
        self.partner_intents: dict[str, PartnerIntent] = {}
        self.position: Point = (0.0, 0.0)
        self.heading = 0.0
        self.room_id = next(iter(self.rooms))
        self.time, self.horizon = 0, self.rules.max_frames
        self._turns_here = 0
        self._baseline: tuple[set[int], int] | None = None
        self._unseen_looks: dict[int, int] = {}  # object id -> looks at its believed place that missed it
        self._not_found: dict[tuple[int, int], int] = {}  # (object id, room id) -> frame a told place was found empty
        self._last_look = -1

    # ------------------------------------------------------------------------------------------- updating
    @property
    def message_limit(self) -> int:
        return self.rules.max_message_chars

    def update(self, obs: Observation) -> None:
        assert isinstance(obs, HouseObservation), "TDW-MAT observes a HouseObservation"
        self.time, self.horizon = obs.time, obs.horizon
        moved = obs.room_id != self.room_id or obs.position != self.position
        self.position, self.room_id = obs.position, obs.room_id
        self.heading = float(getattr(obs, "heading", self.heading))
        turned = (obs.last_action or "").startswith("[turn_left]") and obs.last_action_ok
        self._turns_here = self._turns_here + 1 if turned and not moved else 0
        if self.explored.get(self.room_id) == "none":
            self.explored[self.room_id] = "part"
        if self._turns_here >= SWEEP_TURNS:
            self.explored[self.room_id] = "all"
        self.hand_items = [o.id for o in obs.holding if o.inside is None]
        self.contents = {i: [o.id for o in obs.holding if o.inside == i] for i in self.hand_items}
        self._learn_from_refusal(obs)
        for obj in obs.holding:
            self._note(obj.id, obj.name, obj.kind, obs.room_id, obs.position, obj.inside, self.agent_id)
        for obj in obs.visible_objects:
            self._note(obj.id, obj.name, obj.kind, obj.room_id, obj.position, obj.inside, obj.held_by)
        seen = {o.id for o in obs.holding} | {o.id for o in obs.visible_objects}
        self._forget_unseen(seen)
        self._rule_out_told(seen)
        for partner in obs.partners:
            view = self.partners.setdefault(partner.agent_id, Partner(partner.agent_id, partner.name))
            view.room_id, view.position, view.last_seen_step = partner.room_id, partner.position, obs.time
            view.holding = [o.id for o in partner.holding if o.inside is None]
            view.holding_all = [o.id for o in partner.holding]
        for known in self.objects.values():
            if known.kind == "item" and self.in_goal_zone(known.position, known.room_id):
                self.transported.add(known.id)

    def _learn_from_refusal(self, obs: HouseObservation) -> None:
        """A grasp refused because its object is held, in a container or transported says where it is not: free
        where it was believed. One refused because it is not within reach (`ELSEWHERE`: another room, or too far)
        says so only if the belief placed it within reach of here; then its place is forgotten (else the grasper
        merely stood in the wrong place, and the place it is believed at stays). Read once, on the observation that
        ends the grasp (the next ones, while another action runs, still carry it)."""
        cause = obs.last_action_cause if isinstance(obs, TDWObservation) else None
        if cause is None or obs.last_action_ok or not obs.ready or not obs.last_action:
            return
        try:
            object_id = PrimitiveAction.parse(obs.last_action).target_id
        except ValueError:
            return
        known = self.objects.get(object_id) if object_id is not None else None
        if known is None:
            return
        if cause == FailureCause.ELSEWHERE:
            if self._believed_within_reach(known):
                known.room_id = known.position = known.inside = known.held_by = None
                self._unseen_looks.pop(known.id, None)
            return
        known.room_id = known.position = known.inside = None
        known.held_by = None if cause == FailureCause.TRANSPORTED else SOMEONE
        if cause == FailureCause.TRANSPORTED and known.kind == "item":
            self.transported.add(known.id)

    def _believed_within_reach(self, known: Known) -> bool:
        """Believed in this agent's room and within its grasp range: a grasp from here should have reached it."""
        return (known.room_id == self.room_id and known.position is not None
                and distance(self.position, known.position) <= self.rules.grasp_range)

    def _forget_unseen(self, seen: set[int]) -> None:
        """Negative evidence: an object seen earlier whose believed place is in view now and which is not seen is
        no longer believed there, once a miss by the perception is unlikely enough (`STILL_THERE_BELOW`). With the
        detector only a place within `NEAR` counts. Places told by partners are a room's centre, not a sighting,
        and are left alone. One look per frame: an observation folded in twice does not count twice."""
        if self.time == self._last_look:
            return
        self._last_look = self.time
        for object_id in seen:
            self._unseen_looks.pop(object_id, None)
        reach = NEAR if self.rules.perception == "detector" else self.rules.view_range
        for known in self.objects.values():
            if (known.id in seen or known.source != "seen" or known.kind == "surface" or known.position is None
                    or known.held_by == self.agent_id):
                continue
            if not in_view_from(self.position, self.heading, self.room_id, known.position, known.room_id,
                                self.rules.view_degrees, reach):
                continue
            looks = self._unseen_looks.get(known.id, 0) + 1
            if self._miss_rate(known) ** looks < STILL_THERE_BELOW:
                known.room_id = known.position = known.inside = known.held_by = None
                self._unseen_looks.pop(known.id, None)
            else:
                self._unseen_looks[known.id] = looks

    def _rule_out_told(self, seen: set[int]) -> None:
        """Negative evidence for a told place, where a go-grab looks for it: standing within `TOLD_LOOK_WITHIN` of
        the centre of the room a partner said an object is in, and not seeing it (the distance alone, as the skill
        book measures it). The go-grab ends there with no world action, so no refusal would teach anything, and the
        grab would be listed again and again."""
        for known in list(self.objects.values()):
            room = self.rooms.get(known.room_id) if known.room_id is not None else None
            if (room is None or known.source != "told" or known.id in seen or known.kind == "surface"
                    or known.id in self.transported):
                continue
            if distance(self.position, room.center) <= TOLD_LOOK_WITHIN:
                self.note_not_found(known.id, room.id)

    def _miss_rate(self, known: Known) -> float:
        """The chance one look misses this object where it is: none for the oracle, its class's `p_miss` for the
        detector (targets are of the episode's task's class)."""
        if self.rules.perception != "detector":
            return 0.0
        return self.rules.p_miss.get(self.task if known.kind == "item" else known.kind, 0.0)

    def _note(self, object_id: int, name: str, kind: str, room_id: int | None, position: Point | None,
              inside: int | None, held_by: str | None, source: str = "seen") -> None:
        known = self.objects.get(object_id) or Known(object_id, name, kind)
        known.room_id, known.position, known.inside, known.held_by = room_id, position, inside, held_by
        if source == "seen":  # a sighting is newer evidence than any place found empty
            self._not_found = {k: t for k, t in self._not_found.items() if k[0] != object_id}
        known.source, known.last_seen_step = source, self.time
        self.objects[object_id] = known

    def note_told(self, object_id: int, name: str, kind: str, room_id: int | None, step: int | None = None) -> None:
        """A partner said (at frame `step`) where an object is; what this agent saw itself overrides it, unless it
        has lost track of it (it looked there and the object was gone); one it knows is taken stays taken until
        seen free. A room where this agent looked for the object and did not find it (`note_not_found`) is taken
        again only from a message sent after that look."""
        known = self.objects.get(object_id)
        if known is not None and known.source == "seen" and (known.room_id is not None or known.held_by is not None):
            return
        found_empty = self._not_found.get((object_id, room_id)) if room_id is not None else None
        if found_empty is not None and (step is None or step <= found_empty):
            return
        position = self.rooms[room_id].center if room_id in self.rooms else None
        self._note(object_id, name, kind, room_id, position, None, None, source="told")

    def note_not_found(self, object_id: int, room_id: int) -> None:
        """The object was looked for where it is believed, in `room_id`, and not seen: the place is wrong. It is
        forgotten (listed nowhere) and that room stays ruled out for it until it is seen or a newer message tells
        it."""
        known = self.objects.get(object_id)
        if known is None or known.room_id != room_id or known.held_by is not None:
            return
        known.room_id = known.position = known.inside = None
        self._unseen_looks.pop(object_id, None)
        self._not_found[(object_id, room_id)] = self.time

    def in_goal_zone(self, position: Point | None, room_id: int | None) -> bool:
        if position is None or room_id is None or room_id not in self.rooms:
            return False
        return (self.rooms[room_id].name == "Bedroom"
                and distance(position, self.plan.bed) < self.rules.goal_radius)

    # ------------------------------------------------------------------------------------------- capabilities
    @property
    def holding(self) -> Sequence[int]:
        return list(self.hand_items)

    @property
    def hands(self) -> int:
        return 2

    def label_of(self, target_id: int) -> str:
        if target_id in self.objects:
            return self.objects[target_id].label
        if target_id in self.rooms:
            return self.rooms[target_id].label
        return f"<thing> ({target_id})"

    def satisfied(self, predicate: GoalPredicate) -> int:
        return sum(1 for i in self.transported if self.objects[i].name == predicate.object_name)

    def goal_objects(self) -> list[Known]:
        """Targets known, not yet at the bed, whose name the goal still needs."""
        return [o for o in self.objects.values() if o.kind == "item" and o.id not in self.transported
                and (p := self.predicate_for(o)) is not None and self.satisfied(p) < p.count]

    def predicate_for(self, obj: Any) -> GoalPredicate | None:
        return next((p for p in self.goal if p.object_name == obj.name), None)

    @property
    def checked_containers(self) -> dict[int, int]:
        """Containers whose contents this agent has seen (any container seen: they are open), with that frame."""
        return {o.id: o.last_seen_step for o in self.objects.values() if o.kind == "container" and o.source == "seen"}

    def note_intent(self, agent_id: str, kind: str, target_id: int | None) -> None:
        """A partner said what it goes to do next."""
        self.partner_intents[agent_id] = PartnerIntent(kind, target_id, self.time)

    @property
    def explored_rooms(self) -> set[int]:
        return {r for r, level in self.explored.items() if level == "all"}

    def room_name(self, room_id: int | None) -> str:
        return self.rooms[room_id].name if room_id in self.rooms else "unknown room"

    @property
    def walk_speed(self) -> float:
        """Metres per frame."""
        return self.rules.metres_per_frame

    @property
    def reach(self) -> float:
        return self.rules.grasp_range

    def walk_distance(self, a: Point | None, room_a: int | None, b: Point | None, room_b: int | None) -> float:
        a = a if a is not None else self.rooms[room_a].center if room_a in self.rooms else None
        b = b if b is not None else self.rooms[room_b].center if room_b in self.rooms else None
        if a is None or b is None:
            return float("inf")
        return self.plan.walk_distance(a, b)

    def point_along(self, a: Point, room_a: int | None, b: Point, room_b: int | None,
                    distance_: float) -> tuple[Point, int | None]:
        here, left = a, distance_
        for point in self.plan.route(a, b):
            leg = distance(here, point)
            if leg >= left and leg > 0:
                t = left / leg
                spot = (here[0] + (point[0] - here[0]) * t, here[1] + (point[1] - here[1]) * t)
                return spot, self.plan.room_of(spot)
            left -= leg
            here = point
        return b, room_b

    # ------------------------------------------------------------------------------------------- reading
    @property
    def bed_seen(self) -> bool:
        return self.bed_id in self.objects

    def frames_to(self, position: Point | None, room_id: int | None) -> float:
        return self.walk_distance(self.position, self.room_id, position, room_id) / self.walk_speed

    def free_targets(self) -> list[Known]:
        """Known targets not transported, not held by anyone, not in a container, at a known place: what may be
        grasped."""
        return [o for o in self.goal_objects() if o.held_by is None and o.inside is None and o.room_id is not None]

    def in_partner_hands(self, known: Known) -> bool:
        """A partner was last seen holding it (or a container it is in), no earlier than it was last seen itself:
        the detector may miss a thing in a partner's hands while it sees the partner. RHP, whose reference code
        knows only what its detector registers, does not read this; the kit's list does."""
        return any(known.id in p.holding_all and p.last_seen_step >= known.last_seen_step
                   for p in self.partners.values())

    def free_containers(self) -> list[Known]:
        """Containers not held, at a known place outside the goal zone (one left there is out of play)."""
        return [o for o in self.objects.values() if o.kind == "container" and o.held_by is None
                and o.room_id is not None and not self.in_goal_zone(o.position, o.room_id)]

    def _names(self, ids: list[int]) -> str:
        labels = [self.label_of(i) for i in ids]
        return ", ".join(labels[:-1]) + (" and " if len(labels) > 1 else "") + (labels[-1] if labels else "")

    def _hands_text(self) -> str:
        if not self.hand_items:
            return "I'm holding nothing."
        parts = []
        for item in self.hand_items:
            inner = self.contents.get(item) or []
            text = self.label_of(item)
            if self.objects[item].kind == "container":
                text += f" with {self._names(inner)} in it" if inner else " (empty)"
            parts.append(text)
        return f"I'm holding {' and '.join(parts)}."

    def _found_in(self, room_id: int) -> str:
        here = [o for o in self.objects.values() if o.room_id == room_id and o.held_by is None
                and o.inside is None and o.id not in self.transported]
        targets = [o.id for o in here if o.kind == "item" and self.predicate_for(o)]
        containers = [o.id for o in here if o.kind == "container" and not self.in_goal_zone(o.position, room_id)]
        bits = []
        if targets:
            bits.append(f"target objects {self._names(targets)}")
        if containers:
            bits.append(f"containers {self._names(containers)}")
        if room_id == self.plan.bed_room and self.bed_seen:
            bits.append("the goal position bed")
        return " and ".join(bits) if bits else "nothing"

    def progress_text(self, include_all: bool = False) -> str:
        done = sorted(self.transported)
        lines = [f"I've taken {self.time}/{self.horizon} frames.",
                 f"We've already transported {self._names(done)} to the bed." if done
                 else "We've not transported anything to the bed yet.",
                 self._hands_text(),
                 f"I'm in the {self.label_of(self.room_id)}, where I've explored {self.explored[self.room_id]} of it "
                 f"and found {self._found_in(self.room_id)}."]
        for partner in self.partners.values():
            if partner.last_seen_step < 0:
                lines.append(f"I don't know where {partner.name} is.")
                continue
            held = self._names(partner.holding) or "nothing"
            lines.append(f"I last saw {partner.name} in the {self.label_of(partner.room_id or 0)} at frame "
                         f"{partner.last_seen_step}, holding {held}.")
        for room_id in self.rooms:
            if room_id == self.room_id:
                continue
            level = self.explored[room_id]
            found = self._found_in(room_id)
            if level == "none" and found == "nothing":
                lines.append(f"I haven't been to the {self.label_of(room_id)}.")
            else:
                lines.append(f"I've explored {level} of the {self.label_of(room_id)}, where I found {found}.")
        return " ".join(lines)

    def brief_text(self) -> str:
        need = sum(p.count for p in self.goal) - len(self.transported)
        free = ", ".join(o.label for o in self.free_targets()) or "none known"
        return (f"Frame {self.time}/{self.horizon}. {need} targets still to transport. {self._hands_text()} "
                f"Free targets: {free}. Bed {'seen' if self.bed_seen else 'not seen yet'}.")

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        found = {o.id for o in self.goal_objects()} | set(self.transported)
        count = len(self.transported)
        if self._baseline is None:
            self._baseline = (found, count)
            return []
        seen, before = self._baseline
        events = [ProgressEvent(DISCOVERY, f"found {self.label_of(i)}", self.objects[i].source == "seen")
                  for i in sorted(found - seen)]
        if count > before:
            events.append(ProgressEvent(SUBGOAL, f"{count} targets transported", True))
        self._baseline = (seen | found, count)
        return events


