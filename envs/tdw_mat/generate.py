"""Seeded TDW-MAT episodes in the shipped scenes, placed by the rules of CoELA's scene generator (specs §1).

Each episode has 10 targets of its task. A target goes on a table, sofa or chair, else on the floor, of a room whose
type `list.json` allows for it (never a Bedroom or the Porch); containers ("enough": 5 in at most two rooms,
"rare": 2 in one room) avoid Offices for food and Kitchens for stuff. The two agents start on the floor of rooms
other than the Bedroom. `generated/SEED` is one episode (scene, layout, setting and task drawn from the seed);
`generated/SEED/2a_1_0/food` pins them. Run `python -m coopgraph.envs.tdw_mat.generate --seed N --count K`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from coopgraph.envs.tdw_mat.episode import EpisodeObject, Task, TDWEpisode
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, Point, load_floorplan, shipped_data

GENERATED_SET = "generated"
TARGETS = 10
#: setting -> (containers, rooms they may spread over): CoELA's "enough" and "rare".
CONTAINERS = {0: (5, 2), 1: (2, 1)}
NO_CONTAINER = {"food": "Office", "stuff": "Kitchen"}
NEVER = ("Bedroom", "Porch")
#: Objects on a surface sit this far (metres, at most) from its centre; floor spots are grid cells this wide.
SURFACE_JITTER, CELL = 0.3, 0.5


class GenerateError(ValueError):
    """A generated episode id that cannot be read; the message says what the form is."""


def _floor_spots(plan: FloorPlan, room_id: int) -> list[Point]:
    """Cell centres inside the room itself (`area_of`: not on a walkway that merely belongs to it, as CoELA's
    generator never places on the Porch)."""
    cells = [c for c in plan.cells(CELL) if plan.cell_room(c, CELL) == room_id]
    spots = [((i + 0.5) * CELL, (j + 0.5) * CELL) for i, j in cells]
    return [spot for spot in spots if plan.area_of(spot) == room_id]


def _spot(rng: random.Random, plan: FloorPlan, room_id: int, surfaces: list[tuple[str, Point]], name: str,
          rules: dict[str, Any], room_type: str) -> Point:
    """On a random surface of the room that `list.json` allows `name` on, else on a random floor cell."""
    fitting = [p for kind, p in surfaces if plan.area_of(p) == room_id and name in rules[kind].get(room_type, [])]
    if fitting:
        x, z = rng.choice(fitting)
        return plan.clamp((round(x + rng.uniform(-SURFACE_JITTER, SURFACE_JITTER), 3),
                           round(z + rng.uniform(-SURFACE_JITTER, SURFACE_JITTER), 3)))
    return rng.choice(_floor_spots(plan, room_id))


def generate_episode(seed: int, key: str | None = None) -> TDWEpisode:
    """The episode of `seed`; `key` (`2a_1_0/food`) pins scene, layout, setting and task instead of drawing them."""
    rng = random.Random(seed)
    data = shipped_data()
    scenes = sorted(data["scenes"])
    scene, layout, setting, task = (rng.choice(scenes), rng.randrange(3), rng.randrange(2),
                                    rng.choice(TASKS))
    if key is not None:
        scene, layout, setting, task = _parse_key(key, scenes)
    entry = data["scenes"][scene]["layouts"][str(layout)]
    room_types: list[str] = entry["room_types"]
    plan = load_floorplan(scene, layout, room_types)
    objects_data = data["objects"]
    rules = objects_data["placement"]
    surfaces = [(kind, (x, z)) for kind, x, z in entry["surfaces"]]
    rooms = sorted(plan.rooms.values(), key=lambda r: r.id)
    used: set[int] = set()

    def new_id() -> int:
        while (value := rng.randrange(10_000_000, 100_000_000)) in used:
            pass
        used.add(value)
        return value

    objects = []
    for _ in range(TARGETS):
        name = rng.choice(objects_data["tasks"][task]["target"])
        allowed = [r for r in rooms if r.type not in NEVER and name in rules["ground"].get(r.type, [])]
        room = rng.choice(allowed)
        objects.append(EpisodeObject(id=new_id(), name=name, kind="target", room_type=room.type,
                                     position=_spot(rng, plan, room.id, surfaces, name, rules, room.type)))
    count, spread = CONTAINERS[setting]
    allowed = [r for r in rooms if r.type not in NEVER and r.type != NO_CONTAINER[task]]
    homes = rng.sample(allowed, min(spread, len(allowed)))
    for _ in range(count):
        room = rng.choice(homes)
        objects.append(EpisodeObject(id=new_id(), name=rng.choice(objects_data["tasks"][task]["container"]),
                                     kind="container", room_type=room.type,
                                     position=rng.choice(_floor_spots(plan, room.id))))
    start_rooms = [r for r in rooms if r.type != "Bedroom"]
    starts = [rng.choice(_floor_spots(plan, rng.choice(start_rooms).id)) for _ in range(2)]
    scene_name = f"{scene}a"
    episode_id = f"{GENERATED_SET}/{seed}" + (f"/{key}" if key is not None else "")
    return TDWEpisode(episode_id=episode_id, scene=scene_name, layout=layout, setting=setting, task=task,
                      room_types=room_types, objects=objects, starts=starts)


#: The two tasks a generated episode draws from, in the order the seed picks them.
TASKS: tuple[Task, ...] = ("food", "stuff")


def _parse_key(key: str, scenes: list[str]) -> tuple[str, int, int, Task]:
    form = "SCENE_LAYOUT_SETTING/TASK such as 2a_1_0/food"
    stem, _, task = key.partition("/")
    parts = stem.split("_")
    if len(parts) != 3 or task not in ("food", "stuff") or not parts[1].isdigit() or not parts[2].isdigit():
        raise GenerateError(f"generated episode key {key!r} is not {form}")
    scene, layout, setting = parts[0].rstrip("abcdefghijklmnopqrstuvwxyz"), int(parts[1]), int(parts[2])
    if scene not in scenes or layout not in (0, 1, 2) or setting not in CONTAINERS:
        raise GenerateError(f"generated episode key {key!r}: scenes are {', '.join(scenes)}, layouts 0-2, "
                            "settings 0 (enough containers) or 1 (rare)")
    return scene, layout, setting, task  # type: ignore[return-value]


def generated_episode(episode_id: str) -> TDWEpisode:
    """`generated/SEED` or `generated/SEED/SCENE_LAYOUT_SETTING/TASK`."""
    _, _, rest = episode_id.partition("/")
    seed, _, key = rest.partition("/")
    if not seed.lstrip("-").isdigit():
        raise GenerateError(f"generated episode {episode_id!r}: the form is generated/SEED or "
                            "generated/SEED/SCENE_LAYOUT_SETTING/TASK (e.g. generated/7 or generated/7/2a_1_0/food)")
    return generate_episode(int(seed), key or None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--count", type=int, default=1, help="how many episodes (seeds SEED..SEED+COUNT-1)")
    parser.add_argument("--key", default=None, help="pin scene, layout, setting and task, e.g. 2a_1_0/food")
    parser.add_argument("--out", default=None, help="write the episodes as JSON here (default: print them)")
    args = parser.parse_args(argv)
    try:
        episodes = [generate_episode(s, args.key).model_dump(mode="json")
                    for s in range(args.seed, args.seed + args.count)]
    except GenerateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(episodes, indent=1)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        print(f"wrote {len(episodes)} episodes to {args.out}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
