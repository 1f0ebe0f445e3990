"""Which dataset objects lie outside the room CoELA's metadata records for them, under the shipped geometry.

CoELA's metadata gives each object a room *type*, computed by TDW's own region boxes when the scene was generated;
the text world rebuilds the rooms from ThreeDWorld's floorplan data (nearest floor centre, or scene 2's fitted
boxes), and at a few room boundaries the two disagree. The world takes an object's room from where it lies
(`World`), so this audit says which objects that moves and where they lie: in another room, in a walkway (scene
2's hallway, no room in CoELA) or outside the house.

Run: `python -m coopgraph.envs.tdw_mat.room_audit [--split train --split test]`.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from coopgraph.envs.tdw_mat.episode import SPLITS, EpisodeObject, TDWEpisode, split_episodes
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, distance, load_floorplan


@dataclass(frozen=True)
class Misplaced:
    """One object whose position lies elsewhere than its recorded room: `recorded_room` is the nearest room of the
    recorded type (the room the world used to give it), `lies_in` the room its position belongs to (None when it
    lies in no room), `where` says so in words."""

    episode: str  # SPLIT/KEY, e.g. test/5a_1_0/stuff
    object_id: int
    name: str
    kind: str
    position: tuple[float, float]
    recorded_type: str
    recorded_room: int
    lies_in: int | None
    where: str

    def line(self) -> str:
        x, z = self.position
        return (f"{self.episode} {self.kind} <{self.name}> ({self.object_id}) at ({x:.2f}, {z:.2f}): recorded "
                f"{self.recorded_type} ({self.recorded_room}), lies {self.where}")


def recorded_room(plan: FloorPlan, obj: EpisodeObject) -> int:
    """The room of the recorded type nearest to the object (the metadata names a type, not a room)."""
    rooms = [r for r in plan.rooms.values() if r.type == obj.room_type] or list(plan.rooms.values())
    return min(rooms, key=lambda r: r.box_distance(obj.position) if r.boxes else distance(r.center, obj.position)).id


def _where(plan: FloorPlan, obj: EpisodeObject) -> tuple[int | None, str]:
    """The room the object lies in (None if none) and that place in words."""
    point = obj.position
    if not plan.contains(point):
        return None, "outside the house"
    if plan.boxed and not any(r.holds(point) for r in plan.rooms.values()):
        walkway = next((w for w in plan.walkways.values() if w.holds(point)), None)
        name = walkway.label if walkway is not None else "a walkway"
        return None, f"in no room: the {name} walkway (nearest room {plan.rooms[plan.room_of(point)].label})"
    room = plan.rooms[plan.room_of(point)]
    return room.id, f"in the {room.label}"


def misplaced_in(episode: TDWEpisode, split: str = "") -> list[Misplaced]:
    """The episode's targets and containers whose position lies outside a room of their recorded type."""
    plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
    found = []
    for obj in episode.objects:
        lies_in, where = _where(plan, obj)
        if lies_in is not None and plan.rooms[lies_in].type == obj.room_type:
            continue
        name = f"{split}/{episode.key}" if split else episode.key
        found.append(Misplaced(name, obj.id, obj.name, obj.kind, obj.position, obj.room_type,
                               recorded_room(plan, obj), lies_in, where))
    return found


def audit(splits: list[str] | tuple[str, ...] = SPLITS) -> tuple[list[Misplaced], int]:
    """Every misplaced object of the shipped `splits`, and how many objects were checked."""
    found: list[Misplaced] = []
    checked = 0
    for split in splits:
        for episode in split_episodes(split):
            checked += len(episode.objects)
            found += misplaced_in(episode, split)
    return found, checked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", action="append", choices=SPLITS, help="a shipped split (default: all)")
    args = parser.parse_args(argv)
    found, checked = audit(args.split or SPLITS)
    for item in found:
        print(item.line())
    print(f"{len(found)} of {checked} targets and containers lie outside their recorded room")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
