"""The C-WAH episode: a house, its objects, the counted goal and where agents start, as validated JSON.

Episode JSON format (one episode; a file may also hold `{"episodes": [episode, ...]}`)::

    {
      "episode_id": "mine/0",            # any string; shown in traces and results
      "seed": 7,                         # informational: the generator seed, if any
      "task": "wash_dishes",             # one of the five task keys, or any label
      "rooms": [{"id": 1, "name": "kitchen", "x": 0, "y": 0, "width": 6, "depth": 5}, ...],
      "doors": [{"rooms": [1, 2], "position": [6.0, 2.5]}, ...],
      "objects": [
        {"id": 10, "name": "dishwasher", "kind": "container", "room": 1, "position": [5.5, 1.0]},
        {"id": 40, "name": "plate", "kind": "item", "inside": 10},
        {"id": 41, "name": "fork", "kind": "item", "on": 12},
        ...
      ],
      "goal": [{"relation": "IN", "object": "plate", "target": 10, "count": 2}, ...],
      "agent_starts": [{"room": 2, "position": [8.0, 2.0]}, ...]
    }

Rooms are axis-aligned rectangles in metres (`x`, `y` is the lower corner); a door joins two rooms that
share a wall and sits on it. Containers and surfaces have a room and a position; items lie `on` a surface
or `inside` a container (their room and position follow it). Containers start closed unless
`"is_open": true`. `dummy: true` marks noise objects. Ids are unique integers across rooms and objects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from coopgraph.envs.cwah.catalog import ObjectKind
from coopgraph.envs.protocol import GoalPredicate, Point


class RoomSpec(BaseModel):
    """A rectangular room; (x, y) is its lower-left corner, sizes in metres."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    x: float
    y: float
    width: float
    depth: float

    @property
    def center(self) -> Point:
        return (self.x + self.width / 2, self.y + self.depth / 2)

    def contains(self, point: Point, margin: float = 1e-6) -> bool:
        px, py = point
        return (
            self.x - margin <= px <= self.x + self.width + margin
            and self.y - margin <= py <= self.y + self.depth + margin
        )


class DoorSpec(BaseModel):
    """A doorway on the wall two rooms share."""

    model_config = ConfigDict(frozen=True)

    rooms: tuple[int, int]
    position: Point


class ObjectSpec(BaseModel):
    """An object's initial state: furniture has a room and position, items lie on or inside furniture."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    kind: ObjectKind
    room: int | None = None
    position: Point | None = None
    on: int | None = None
    inside: int | None = None
    is_open: bool = False
    dummy: bool = False

    @property
    def fixed_place(self) -> tuple[Point, int]:
        """Furniture's position and room, which `Episode` validation guarantees; an item has none of its own."""
        if self.position is None or self.room is None:
            raise ValueError(f"{self.kind} {self.id} has no position and room of its own")
        return self.position, self.room


class GoalSpec(BaseModel):
    """A counted predicate: `count` objects of class `object` must be ON/IN object `target`."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    relation: Literal["ON", "IN"]
    object: str
    target: int
    count: int = Field(ge=1)


class AgentStart(BaseModel):
    """Where one agent starts; agent i uses entry i."""

    model_config = ConfigDict(frozen=True)

    room: int
    position: Point


class Episode(BaseModel):
    """One C-WAH episode, validated so that every reference points at something that exists."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    seed: int | None = None
    task: str
    rooms: tuple[RoomSpec, ...]
    doors: tuple[DoorSpec, ...]
    objects: tuple[ObjectSpec, ...]
    goal: tuple[GoalSpec, ...]
    agent_starts: tuple[AgentStart, ...]

    @model_validator(mode="after")
    def _check_references(self) -> Episode:
        room_ids = {room.id for room in self.rooms}
        by_id = {obj.id: obj for obj in self.objects}
        problems: list[str] = []
        if len(by_id) != len(self.objects) or room_ids & by_id.keys():
            problems.append("ids must be unique across rooms and objects")
        for door in self.doors:
            problems += [f"door names unknown room {r}" for r in door.rooms if r not in room_ids]
        for obj in self.objects:
            if obj.kind == "item":
                holder = obj.on if obj.on is not None else obj.inside
                if holder is None or holder not in by_id:
                    problems.append(f"item {obj.id} must lie on/inside an existing object")
                elif obj.inside is not None and by_id[holder].kind != "container":
                    problems.append(f"item {obj.id} is inside {holder}, which is not a container")
                elif obj.on is not None and by_id[holder].kind != "surface":
                    problems.append(f"item {obj.id} is on {holder}, which is not a surface")
            elif obj.room not in room_ids or obj.position is None:
                problems.append(f"{obj.kind} {obj.id} needs an existing room and a position")
        for goal in self.goal:
            target = by_id.get(goal.target)
            wanted = "container" if goal.relation == "IN" else "surface"
            if target is None or target.kind != wanted:
                problems.append(f"goal {goal.relation}({goal.object}, {goal.target}) needs a {wanted} target")
        for start in self.agent_starts:
            if start.room not in room_ids:
                problems.append(f"agent start in unknown room {start.room}")
        if not self.agent_starts:
            problems.append("at least one agent start is required")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def object(self, object_id: int) -> ObjectSpec:
        for obj in self.objects:
            if obj.id == object_id:
                return obj
        raise KeyError(object_id)

    def goal_predicates(self) -> list[GoalPredicate]:
        """The goal in the protocol's form, with target names filled in."""
        names = {obj.id: obj.name for obj in self.objects}
        return [
            GoalPredicate(
                relation=g.relation,
                object_name=g.object,
                target_id=g.target,
                target_name=names[g.target],
                count=g.count,
            )
            for g in self.goal
        ]

    @property
    def subgoal_count(self) -> int:
        return sum(g.count for g in self.goal)


def load_episode_file(path: str | Path) -> list[Episode]:
    """Read a JSON file holding one episode or `{"episodes": [...]}`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict) and "episodes" in data:
        return [Episode.model_validate(item) for item in data["episodes"]]
    if isinstance(data, list):
        return [Episode.model_validate(item) for item in data]
    return [Episode.model_validate(data)]


def save_episode_file(episodes: list[Episode], path: str | Path, *, name: str = "") -> None:
    """Write episodes as `{"name": ..., "episodes": [...]}`, one compact episode per line."""
    lines = [episode.model_dump_json(exclude_defaults=True) for episode in episodes]
    body = ",\n".join(lines)
    Path(path).write_text(f'{{"name": {json.dumps(name)}, "episodes": [\n{body}\n]}}\n', encoding="utf-8")
