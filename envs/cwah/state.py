"""The mutable ground truth of a running C-WAH episode: where every object and agent is right now."""

from __future__ import annotations

from dataclasses import dataclass, field

from coopgraph.envs.cwah.catalog import ObjectKind
from coopgraph.envs.cwah.episode import Episode
from coopgraph.envs.cwah.layout import FloorPlan
from coopgraph.envs.protocol import Point

AGENT_IDS: tuple[str, ...] = ("alice", "bob", "carol", "dave")


@dataclass
class ObjectState:
    """One object's live state; an item's room and position follow its holder (furniture or agent)."""

    id: int
    name: str
    kind: ObjectKind
    room: int
    position: Point
    on: int | None = None
    inside: int | None = None
    is_open: bool | None = None
    held_by: str | None = None
    dummy: bool = False


@dataclass
class AgentState:
    """One agent's live state and its running totals."""

    id: str
    name: str
    room: int
    position: Point
    holding: list[int] = field(default_factory=list)
    travel: float = 0.0
    messages_sent: int = 0
    characters_sent: int = 0
    invalid_actions: int = 0


class WorldState:
    """Objects, agents and the goal of one episode, with the queries the dynamics and observations need."""

    def __init__(self, episode: Episode, agent_ids: list[str]) -> None:
        if len(agent_ids) > len(episode.agent_starts):
            raise ValueError(
                f"episode {episode.episode_id} has {len(episode.agent_starts)} agent starts, "
                f"{len(agent_ids)} agents requested"
            )
        self.episode = episode
        self.floor = FloorPlan(episode.rooms, episode.doors)
        self.goal = episode.goal_predicates()
        self.objects: dict[int, ObjectState] = {}
        specs = {spec.id: spec for spec in episode.objects}
        for spec in episode.objects:
            if spec.kind == "item":
                holder_id = spec.on if spec.on is not None else spec.inside
                assert holder_id is not None, "Episode validation puts every item on or inside furniture"
                position, room = specs[holder_id].fixed_place
            else:
                position, room = spec.fixed_place
            self.objects[spec.id] = ObjectState(
                id=spec.id,
                name=spec.name,
                kind=spec.kind,
                room=room,
                position=position,
                on=spec.on,
                inside=spec.inside,
                is_open=spec.is_open if spec.kind == "container" else None,
                dummy=spec.dummy,
            )
        self.agents: dict[str, AgentState] = {}
        for agent_id, start in zip(agent_ids, episode.agent_starts, strict=False):
            self.agents[agent_id] = AgentState(
                id=agent_id, name=agent_id.capitalize(), room=start.room, position=start.position
            )

    def room_name(self, room_id: int) -> str:
        return self.floor.room_name(room_id)

    def is_hidden(self, obj: ObjectState) -> bool:
        """Inside a closed container (at any depth)."""
        while obj.inside is not None:
            container = self.objects[obj.inside]
            if not container.is_open:
                return True
            obj = container
        return False

    def visible_to(self, obj: ObjectState, agent: AgentState) -> bool:
        """Seen by `agent`: in its room, not held, not inside a closed container."""
        return obj.held_by is None and obj.room == agent.room and not self.is_hidden(obj)

    def move_agent(self, agent: AgentState, position: Point, room: int) -> None:
        agent.position, agent.room = position, room
        for object_id in agent.holding:
            self.objects[object_id].position, self.objects[object_id].room = position, room

    def satisfied_counts(self) -> list[int]:
        """How many objects currently meet each goal predicate (capped at its count)."""
        counts = []
        for predicate in self.goal:
            relation = "on" if predicate.relation == "ON" else "inside"
            have = sum(
                1
                for obj in self.objects.values()
                if obj.name == predicate.object_name and getattr(obj, relation) == predicate.target_id
            )
            counts.append(min(have, predicate.count))
        return counts

    def is_done(self) -> bool:
        return all(have >= p.count for have, p in zip(self.satisfied_counts(), self.goal, strict=True))
