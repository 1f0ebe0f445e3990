"""What a world's belief offers agents: one core every kit has, and optional capabilities some kits declare.

Nodes declare the capabilities they require when they are registered (`@node(..., requires={"rooms"})`) and
a spec is checked against the chosen world's kit before an episode starts, so a node never probes a belief
for members that might be missing. `coopgraph.testing.check_kit` verifies that a kit's belief really has
the members of every capability it declares. Each capability is a Protocol; a node that requires one
reads the belief through it (`typing.cast(Rooms, belief)`), which the type checker then holds it to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from coopgraph.envs.protocol import Affordance, GoalPredicate, ObjectInfo, Observation, Point, RoomInfo


#: The kinds of `ProgressEvent`: a goal object known for the first time, a subgoal's count going up.
DISCOVERY, SUBGOAL = "discovery", "subgoal"


@dataclass(frozen=True)
class ProgressEvent:
    """One piece of progress a belief noticed: a goal object found, or a subgoal's count going up.

    `own` is true when this agent caused or saw it itself (not told by a partner).
    """

    kind: str  # DISCOVERY or SUBGOAL
    text: str
    own: bool


@runtime_checkable
class Belief(Protocol):
    """The core of every world's belief: it follows observations and reports progress in words."""

    agent_id: str

    @property
    def message_limit(self) -> int:
        """The longest message the world delivers whole (characters); a longer one is cut."""

    def update(self, obs: Observation) -> None:
        """Fold one observation into the belief."""

    def progress_text(self, include_all: bool = False) -> str:
        """The task and what is known of it, as a planner's prompt shows it."""

    def brief_text(self) -> str:
        """A few lines a small planner can read: what is left to do and what is in reach."""

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        """What became progress since the last call (the first call sets the baseline and reports nothing)."""


class KnownObject(Protocol):
    """What a node may read of one object the belief knows (worlds with `objects`)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def room_id(self) -> int | None: ...
    @property
    def position(self) -> Point | None: ...
    @property
    def inside(self) -> int | None: ...
    @property
    def on(self) -> int | None: ...
    @property
    def held_by(self) -> str | None: ...
    @property
    def source(self) -> str: ...
    @property
    def last_seen_step(self) -> int:
        """When (world time) it was last seen or told of; how old what is believed about it is."""
    @property
    def label(self) -> str: ...


@runtime_checkable
class Objects(Protocol):
    """`objects`: things known by id, what this agent carries and how many it can carry."""

    @property
    def objects(self) -> Mapping[int, KnownObject]: ...
    @property
    def holding(self) -> Sequence[int]: ...
    @property
    def hands(self) -> int: ...

    def label_of(self, target_id: int) -> str:
        """`<name> (id)` of a known object or place."""


@runtime_checkable
class Goals(Protocol):
    """`goals`: counted goal predicates and which known objects serve them."""

    @property
    def goal(self) -> Sequence[GoalPredicate]: ...

    def satisfied(self, predicate: GoalPredicate) -> int: ...

    def goal_objects(self) -> Sequence[KnownObject]:
        """Known objects that still serve an unfinished predicate."""

    def predicate_for(self, obj: KnownObject) -> GoalPredicate | None: ...


@runtime_checkable
class Rooms(Protocol):
    """`rooms`: the world is divided into named rooms; where this agent is; which rooms it has explored."""

    @property
    def rooms(self) -> Mapping[int, RoomInfo]: ...
    @property
    def room_id(self) -> int: ...
    @property
    def explored_rooms(self) -> set[int]: ...

    def room_name(self, room_id: int | None) -> str: ...


@runtime_checkable
class Spatial(Protocol):
    """`spatial`: positions and the walking geometry between them, in the world's unit of space."""

    @property
    def position(self) -> Point: ...
    @property
    def walk_speed(self) -> float:
        """Space covered per unit of time."""
    @property
    def reach(self) -> float:
        """How close an agent must stand to touch a thing."""

    def walk_distance(self, a: Point | None, room_a: int | None, b: Point | None, room_b: int | None) -> float:
        """Walking distance between two places (a room's centre stands in for an unknown point); inf if unknown."""

    def point_along(self, a: Point, room_a: int | None, b: Point, room_b: int | None,
                    distance: float) -> tuple[Point, int | None]:
        """Where a walker from a to b is after `distance` (and in which room)."""


@runtime_checkable
class Containers(Protocol):
    """`containers`: things that open and hold others; which ones this agent knows to be checked."""

    @property
    def checked_containers(self) -> Mapping[int, int]: ...


class PartnerView(Protocol):
    """What a node may read of a partner (worlds with `partners`)."""

    @property
    def agent_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def room_id(self) -> int | None: ...
    @property
    def position(self) -> Point | None: ...
    @property
    def holding(self) -> Sequence[int]: ...
    @property
    def last_seen_step(self) -> int: ...
    @property
    def last_heard_step(self) -> int: ...


class IntentView(Protocol):
    """A partner's announced subgoal: the world's action kind and its target."""

    @property
    def kind(self) -> str: ...
    @property
    def target_id(self) -> int | None: ...
    @property
    def step(self) -> int: ...
    @property
    def verb(self) -> str:
        """How a partner's plan reads in a sentence ("grab", "check"): "said it would <verb> <target>"."""


@runtime_checkable
class Partners(Protocol):
    """`partners`: where partners were seen, what they hold, and what they said they would do."""

    @property
    def partners(self) -> Mapping[str, PartnerView]: ...
    @property
    def partner_intents(self) -> Mapping[str, IntentView]: ...


@runtime_checkable
class LayoutFacts(Protocol):
    """`layout`: the world's fixed map as facts in the labels its state text uses (LLM-Co's `o0`, `c1`, `k5`), for
    the world's own prompt template to put in words; a node passes them on and never reads inside them."""

    def layout_facts(self) -> Mapping[str, object]:
        """JSON-able facts about the map that do not change during an episode."""


@runtime_checkable
class Sightings(Protocol):
    """What an observation shows in view, in worlds of rooms and objects (C-WAH, TDW-MAT, the toyhouse): the room
    the agent stands in and the objects it sees. Unlike the belief's capabilities it is read off the observation
    (`isinstance(obs, Sightings)`), so a node that also runs in worlds without objects (perception, REVECA's
    dialogue) uses it where there is one and skips it elsewhere, without naming any world's observation class."""

    @property
    def room(self) -> str: ...
    @property
    def visible_objects(self) -> Sequence[ObjectInfo]: ...


#: Every capability a kit may declare: its name, the protocol its belief then implements, and what it means.
CAPABILITIES: dict[str, tuple[type | None, str]] = {
    "objects": (Objects, "things known by id, what the agent carries, how many it can carry"),
    "goals": (Goals, "counted goal predicates and the known objects that serve them"),
    "rooms": (Rooms, "named rooms, the agent's room, which rooms it explored"),
    "spatial": (Spatial, "positions and walking distances"),
    "containers": (Containers, "things that open and hold others, and which are checked"),
    "partners": (Partners, "partners' whereabouts, holdings and announced subgoals"),
    "news": (None, "the kit makes template reports for partners (AgentKit.news)"),
    "look_values": (None, "the world fills Affordance.value on its inspect and explore actions"),
    "layout": (LayoutFacts, "the fixed map as facts in the state's own labels, for the world's prompts"),
    "observed_actions": (None, "the kit's affordances also offer `observed(belief)`: fetches of every free item "
                         "seen, goal or not (REVECA's candidate pool)"),
}


@runtime_checkable
class ObservedAffordances(Protocol):
    """`observed_actions`: what `available` leaves out because the goal does not ask for it, offered anyway.

    REVECA draws its candidates from everything observed and lets relevance keep the useless ones out, so a
    world declaring `observed_actions` lists fetches of every free item it has seen (with the hands not full);
    `available`, which every other planner and the MHP expert read, is unchanged.
    """

    def observed(self, belief: object) -> list[Affordance]: ...


def protocol_members(capability: str) -> list[str]:
    """The member names a belief needs for `capability` (empty for kit-level capabilities)."""
    proto = CAPABILITIES[capability][0]
    if proto is None:
        return []
    names = set(getattr(proto, "__annotations__", {})) | {n for n in vars(proto) if not n.startswith("_")}
    return sorted(names)
