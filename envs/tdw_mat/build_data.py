"""Build the shipped TDW-MAT data from its sources, once: `python -m coopgraph.envs.tdw_mat.build_data SHARED`.

`SHARED` holds `dataset_train/` and `dataset_test/` (CoELA's train and test splits, MIT) and `tdw_floorplans/`
(ThreeDWorld's floorplan data, BSD-2). Writes `data/floorplans.json` (per scene: floor centres, which floors touch,
region index -> floor, a box per floor and the house's bounds from the furniture; per layout the bed) and, per split,
`data/train.json` and `data/test.json` (its 24 episodes converted, in `test_env.json` order). Scene 2's floor
centres are all equal, so its rooms are boxes and its doors wall gaps read off ThreeDWorld's top-down picture
`floorplan_2a.jpg` by hand, once (`SCENE2`; docs/envs/tdw-mat.md says how).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from coopgraph.envs.tdw_mat.episode import SPLITS, Dataset
from coopgraph.envs.tdw_mat.floorplan import distance

#: TDW's region index -> floor number, per scene: the map under which the nearest floor centre gives every
#: dataset object and bed the room type CoELA's metadata records (checked by `check_labels`).
REGION_FLOOR = {"1": {0: 4, 1: 3, 2: 6, 3: 5, 4: 1, 5: 2},
                "4": {0: 2, 1: 7, 2: 1, 3: 5, 4: 3, 5: 4, 6: 6},
                "5": {0: 3, 1: 5, 2: 2, 3: 4, 4: 1, 5: 6}}
#: Scene 2, read by hand off `floorplan_2a.jpg` (512 px): picture pixel (u, v) is world (x, z) =
#: ((u - 252) / 16.5, (259 - v) / 16.5), found by laying all three layouts' furniture over the picture (the
#: furniture then fills the walls: x -10.5..9.6, z -5.7..5.0). One box per region, its walls' inner faces, and the
#: regions told apart by the test split's metadata: CoELA's generator labels an object with the type of the first
#: region (by index) whose box holds it, and a region's types over the three layouts single it out (region 2 is
#: Office, Livingroom, Livingroom; region 6 Livingroom, Livingroom, Office; ...). These boxes give all 162 objects
#: of the six scene files their recorded type (`tests/envs/tdw_mat/test_scene2.py`). Region 5, the Porch, is the
#: hallway with the alcove below it (u 150-204): floor 4, which touches every other floor; the house's doors are
#: the gaps in the walls between it and each room. Overlaps are meant: the first region by index wins.
SCENE2_SCALE = 16.5  # pixels per metre of `floorplan_2a.jpg`
SCENE2_ORIGIN = (252.0, 259.0)  # the pixel of world point (0, 0)
SCENE2 = {
    "region_floor": {0: 1, 1: 2, 2: 3, 3: 5, 4: 6, 5: 4, 6: 7, 7: 8},
    "boxes": {"1": [(133, 167, 204, 229)],                          # 0: the tiled room, top left
              "2": [(62, 167, 150, 335)],                           # 1: the long room on the left
              "3": [(275, 167, 374, 229)],                          # 2: top right
              "5": [(204, 167, 275, 229)],                          # 3: top middle
              "6": [(318, 255, 428, 360)],                          # 4: the kitchen (red tiles)
              "4": [(141, 229, 371, 264), (150, 264, 204, 335)],    # 5: the hallway and its alcove (Porch)
              "7": [(371, 167, 428, 255)],                          # 6: the right end, open to the hallway
              "8": [(204, 264, 318, 352)]},                         # 7: bottom middle
    "doors": [("4", "2", 150, 246), ("4", "1", 190, 229), ("4", "5", 262, 229), ("4", "3", 363, 229),
              ("4", "7", 371, 246), ("4", "8", 262, 264), ("4", "6", 333, 255)],
}
#: CoELA's map spans x in [-15, 15] and z in [-7.5, 7.5]; furniture outside it is not part of the house.
MAP = (15.0, 7.5)
OUT = Path(__file__).parent / "data"


def _xz(position: dict[str, float]) -> tuple[float, float]:
    return (round(position["x"], 3), round(position["z"], 3))


def _world(u: float, v: float) -> tuple[float, float]:
    """A pixel of `floorplan_2a.jpg` as a world point (x, z)."""
    scale, (u0, v0) = SCENE2_SCALE, SCENE2_ORIGIN
    return (round((u - u0) / scale, 2), round((v0 - v) / scale, 2))


def build_scene2(floods: dict[str, Any], layouts: dict[str, Any]) -> dict[str, Any]:
    """Scene 2 from the hand-fitted boxes and doors of `SCENE2` (its floor pivots are all equal)."""
    boxes: dict[str, list[list[float]]] = {}
    for floor, pixel_boxes in SCENE2["boxes"].items():  # type: ignore[attr-defined]
        boxes[floor] = []
        for u0, v0, u1, v1 in pixel_boxes:
            (x0, z1), (x1, z0) = _world(u0, v0), _world(u1, v1)
            boxes[floor].append([x0, z0, x1, z1])
    centres = {f: [round((b[0][0] + b[0][2]) / 2, 2), round((b[0][1] + b[0][3]) / 2, 2)] for f, b in boxes.items()}
    outline = [v for b in boxes.values() for box in b for v in [box]]
    beds = {layout: next(_xz(o["position"]) for o in items if o["name"].startswith("bed"))
            for layout, items in layouts["2"].items()}
    return {
        "floors": centres,
        "adjacent": {k: v["adjacent_floors"] for k, v in floods["2"].items()},
        "region_floor": {str(i): str(f) for i, f in SCENE2["region_floor"].items()},  # type: ignore[attr-defined]
        "floor_boxes": {f: [min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs),
                            max(b[3] for b in bs)] for f, bs in boxes.items()},
        "room_boxes": boxes,
        "doors": [[a, b, *_world(u, v)] for a, b, u, v in SCENE2["doors"]],  # type: ignore[attr-defined]
        "bounds": [min(b[0] for b in outline), min(b[1] for b in outline), max(b[2] for b in outline),
                   max(b[3] for b in outline)],
        "layouts": {layout: {"bed": bed} for layout, bed in beds.items()},
    }


def build_floorplans(source: Path) -> dict[str, Any]:
    floods = json.loads((source / "floorplan_floods.json").read_text())
    layouts = json.loads((source / "floorplan_layouts.json").read_text())
    scenes: dict[str, Any] = {}
    for scene, region_floor in REGION_FLOOR.items():
        floors = {k: _xz(v["position"]) for k, v in floods[scene].items()}
        furniture = [p for items in layouts[scene].values() for o in items
                     if abs((p := _xz(o["position"]))[0]) <= MAP[0] and abs(p[1]) <= MAP[1]]
        boxes: dict[str, list[float]] = {}
        for point in furniture + list(floors.values()):
            floor = min(floors, key=lambda k, p=point: distance(floors[k], p))  # type: ignore[misc]
            box = boxes.setdefault(floor, [point[0], point[1], point[0], point[1]])
            box[:] = [min(box[0], point[0]), min(box[1], point[1]), max(box[2], point[0]), max(box[3], point[1])]
        xs, zs = [p[0] for p in furniture], [p[1] for p in furniture]
        beds = {layout: next(_xz(o["position"]) for o in items if o["name"].startswith("bed"))
                for layout, items in layouts[scene].items()}
        scenes[scene] = {
            "floors": floors,
            "adjacent": {k: v["adjacent_floors"] for k, v in floods[scene].items()},
            "region_floor": {str(i): str(f) for i, f in region_floor.items()},
            "floor_boxes": {k: [round(v, 2) for v in box] for k, box in boxes.items()},
            "bounds": [round(min(xs) - 0.5, 2), round(min(zs) - 0.5, 2), round(max(xs) + 0.5, 2),
                       round(max(zs) + 0.5, 2)],
            "layouts": {layout: {"bed": bed} for layout, bed in beds.items()},
        }
    scenes["2"] = build_scene2(floods, layouts)
    return {"source": "ThreeDWorld floorplan_floods.json and floorplan_layouts.json (BSD-2, LICENSE-tdw.txt); "
                      "scene 2's rooms fitted by hand on floorplan_2a.jpg", "scenes": dict(sorted(scenes.items()))}


#: Furniture the generator puts objects on (CoELA's generator uses tables, sofas and chairs): name part -> kind.
SURFACES = {"table": "table", "sofa": "sofa", "chair": "chair"}


def add_generator_data(plans: dict[str, Any], source: Path, dataset: Path) -> None:
    """Per layout, the region types (CoELA's `room_types.json`) and the surfaces objects can be put on; and the
    task rules of CoELA's `list.json`, with models by their `name_map.json` names (for `generate.py`)."""
    layouts = json.loads((source / "floorplan_layouts.json").read_text())
    room_types = json.loads((dataset / "room_types.json").read_text())
    for scene, data in plans["scenes"].items():
        for layout, entry in data["layouts"].items():
            entry["room_types"] = room_types[scene][int(layout)]
            entry["surfaces"] = [[kind, *_xz(o["position"])] for o in layouts[scene][layout]
                                 for part, kind in SURFACES.items() if part in o["name"]
                                 and abs(o["position"]["x"]) <= MAP[0] and abs(o["position"]["z"]) <= MAP[1]]
    rules = json.loads((dataset / "list.json").read_text())
    names = json.loads((dataset / "name_map.json").read_text())
    plans["objects"] = {
        "tasks": {task: {"target": [names[m] for m in rules[task]["target"]],
                         "container": [names[m] for m in rules[task]["container"]]} for task in ("food", "stuff")},
        "placement": {surface: {room: [names.get(m, m) for m in models] for room, models in rooms.items()}
                      for surface, rooms in rules.items() if surface in ("table", "sofa", "chair", "ground")},
    }


def main(shared: str) -> None:
    root = Path(shared)
    OUT.mkdir(exist_ok=True)
    plans = build_floorplans(root / "tdw_floorplans")
    add_generator_data(plans, root / "tdw_floorplans", root / "dataset_train")
    (OUT / "floorplans.json").write_text(json.dumps(plans, indent=1) + "\n")
    print(f"wrote {OUT / 'floorplans.json'} ({len(plans['scenes'])} scenes)")
    for split in SPLITS:
        dataset = Dataset(root / f"dataset_{split}")
        episodes = [dataset.episode(i).model_dump(mode="json") for i in range(len(dataset.keys()))]
        (OUT / f"{split}.json").write_text(json.dumps(episodes, separators=(",", ":")) + "\n")
        print(f"wrote {OUT / (split + '.json')} ({len(episodes)} episodes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/tdw_mat")
