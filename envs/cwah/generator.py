"""Generates a C-WAH episode from a seed: a four-room house, furniture, goal objects and agent starts.

Same seed, same episode (Python's `random.Random` is stable across platforms and versions).
"""

from __future__ import annotations

import random

from coopgraph.envs.cwah.catalog import (
    CENTRAL_FURNITURE,
    FURNITURE,
    GOAL_CLASSES,
    PLACEMENT,
    ROOM_TYPES,
    kind_of,
)
from coopgraph.envs.cwah.episode import AgentStart, DoorSpec, Episode, GoalSpec, ObjectSpec, RoomSpec
from coopgraph.envs.cwah.layout import euclid
from coopgraph.envs.cwah.tasks import TASK_TYPES, sample_goal_counts
from coopgraph.envs.protocol import Point

COLUMN_WIDTHS = (8.0, 12.0)  # metres, range for each of the two grid columns
ROW_DEPTHS = (7.0, 10.0)  # metres, range for each of the two grid rows
WALL_OFFSET = 0.5  # furniture stands this far from a wall
MIN_SPACING = 1.0  # between two pieces of furniture
MAX_AGENTS = 4
ITEM_ID_START = 300


def _grid_rooms(rng: random.Random) -> tuple[list[RoomSpec], dict[tuple[int, int], int]]:
    widths = [round(rng.uniform(*COLUMN_WIDTHS), 2) for _ in range(2)]
    depths = [round(rng.uniform(*ROW_DEPTHS), 2) for _ in range(2)]
    names = list(ROOM_TYPES)
    rng.shuffle(names)
    cells = [(0, 0), (1, 0), (0, 1), (1, 1)]
    rooms, cell_room = [], {}
    for index, (cell, name) in enumerate(zip(cells, names, strict=True)):
        col, row = cell
        room = RoomSpec(
            id=10 + 50 * index,
            name=name,
            x=sum(widths[:col]),
            y=sum(depths[:row]),
            width=widths[col],
            depth=depths[row],
        )
        rooms.append(room)
        cell_room[cell] = room.id
    return rooms, cell_room


def _doors(
    rng: random.Random, rooms: dict[int, RoomSpec], cell_room: dict[tuple[int, int], int]
) -> list[DoorSpec]:
    pairs = [((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 0), (0, 1)), ((1, 0), (1, 1))]
    dropped = rng.randrange(len(pairs))
    keep_all = rng.random() < 0.35
    doors = []
    for index, (a, b) in enumerate(pairs):
        if index == dropped and not keep_all:
            continue
        ra, rb = rooms[cell_room[a]], rooms[cell_room[b]]
        if a[1] == b[1]:  # side by side: vertical shared wall
            lo, hi = max(ra.y, rb.y), min(ra.y + ra.depth, rb.y + rb.depth)
            position = (ra.x + ra.width, round(rng.uniform(lo + 1.0, hi - 1.0), 2))
        else:  # one above the other: horizontal shared wall
            lo, hi = max(ra.x, rb.x), min(ra.x + ra.width, rb.x + rb.width)
            position = (round(rng.uniform(lo + 1.0, hi - 1.0), 2), ra.y + ra.depth)
        doors.append(DoorSpec(rooms=(ra.id, rb.id), position=position))
    return doors


def _spot(rng: random.Random, room: RoomSpec, central: bool, taken: list[Point]) -> Point:
    """A free position: near the middle for tables, against a random wall for everything else."""
    point: Point = room.center
    for _ in range(60):
        if central:
            point = (
                room.center[0] + rng.uniform(-0.2, 0.2) * room.width,
                room.center[1] + rng.uniform(-0.2, 0.2) * room.depth,
            )
        else:
            along = rng.random()
            side = rng.randrange(4)
            x_low, x_high = room.x + WALL_OFFSET, room.x + room.width - WALL_OFFSET
            y_low, y_high = room.y + WALL_OFFSET, room.y + room.depth - WALL_OFFSET
            point = [
                (x_low + along * (x_high - x_low), y_low),
                (x_low + along * (x_high - x_low), y_high),
                (x_low, y_low + along * (y_high - y_low)),
                (x_high, y_low + along * (y_high - y_low)),
            ][side]
        if all(euclid(point, other) >= MIN_SPACING for other in taken):
            break
    taken.append(point)
    return (round(point[0], 2), round(point[1], 2))


def generate_episode(seed: int, task: str | None = None, episode_id: str | None = None) -> Episode:
    """Build one episode; `task` is a task key (random when None)."""
    rng = random.Random(seed)
    room_list, cell_room = _grid_rooms(rng)
    rooms = {room.id: room for room in room_list}
    doors = _doors(rng, rooms, cell_room)
    objects: list[ObjectSpec] = []
    for room in room_list:
        taken = [door.position for door in doors if room.id in door.rooms]
        next_id = room.id + 1
        for furniture, low, high in FURNITURE[room.name]:
            for _ in range(rng.randint(low, high)):
                position = _spot(rng, room, furniture in CENTRAL_FURNITURE, taken)
                objects.append(
                    ObjectSpec(
                        id=next_id, name=furniture, kind=kind_of(furniture), room=room.id, position=position
                    )
                )
                next_id += 1
    task_type = TASK_TYPES[task] if task else TASK_TYPES[rng.choice(sorted(TASK_TYPES))]
    counts = sample_goal_counts(task_type, rng)
    target = rng.choice([obj for obj in objects if obj.name == task_type.target_class])
    goal = tuple(
        GoalSpec(relation=task_type.relation, object=name, target=target.id, count=count)
        for name, count in counts.items()
    )
    furniture_by_class: dict[str, list[ObjectSpec]] = {}
    for obj in objects:
        furniture_by_class.setdefault(obj.name, []).append(obj)
    item_id = ITEM_ID_START
    for name in GOAL_CLASSES:
        amount = counts[name] + rng.randint(0, 2) if name in counts else rng.randint(0, 1)
        holders = {cls: w for cls, w in PLACEMENT[name].items() if cls in furniture_by_class}
        if name in counts:  # never start an episode with a subgoal already met
            holders.pop(task_type.target_class, None)
        for _ in range(amount):
            holder_class = rng.choices(sorted(holders), weights=[holders[c] for c in sorted(holders)])[0]
            holder = rng.choice(furniture_by_class[holder_class])
            inside = holder.kind == "container"
            objects.append(
                ObjectSpec(
                    id=item_id,
                    name=name,
                    kind="item",
                    inside=holder.id if inside else None,
                    on=None if inside else holder.id,
                )
            )
            item_id += 1
    starts = []
    for _ in range(MAX_AGENTS):
        room = rng.choice(room_list)
        starts.append(
            AgentStart(
                room=room.id,
                position=(
                    round(rng.uniform(room.x + WALL_OFFSET, room.x + room.width - WALL_OFFSET), 2),
                    round(rng.uniform(room.y + WALL_OFFSET, room.y + room.depth - WALL_OFFSET), 2),
                ),
            )
        )
    return Episode(
        episode_id=episode_id or f"seed/{seed}",
        seed=seed,
        task=task_type.key,
        rooms=tuple(room_list),
        doors=tuple(doors),
        objects=tuple(objects),
        goal=goal,
        agent_starts=tuple(starts),
    )
