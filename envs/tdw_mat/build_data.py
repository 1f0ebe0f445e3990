"""Build the shipped TDW-MAT data from its sources, once: `python -m coopgraph.envs.tdw_mat.build_data SHARED`.

`SHARED` holds `dataset_train/` (CoELA's train split, MIT) and `tdw_floorplans/` (ThreeDWorld's floorplan data,
BSD-2). Writes `data/floorplans.json` (per scene: floor centres, which floors touch, region index -> floor, a box
per floor and the house's bounds from the furniture; per layout the bed) and `data/train.json` (the train split's
24 episodes converted). Scene 2's floor centres are all equal, so it is not built (its rooms need fitting by hand).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from coopgraph.envs.tdw_mat.episode import Dataset
from coopgraph.envs.tdw_mat.floorplan import distance

#: TDW's region index -> floor number, per scene: the map under which the nearest floor centre gives every
#: dataset object and bed the room type CoELA's metadata records (checked by `check_labels`).
REGION_FLOOR = {"1": {0: 4, 1: 3, 2: 6, 3: 5, 4: 1, 5: 2},
                "4": {0: 2, 1: 7, 2: 1, 3: 5, 4: 3, 5: 4, 6: 6},
                "5": {0: 3, 1: 5, 2: 2, 3: 4, 4: 1, 5: 6}}
#: CoELA's map spans x in [-15, 15] and z in [-7.5, 7.5]; furniture outside it is not part of the house.
MAP = (15.0, 7.5)
OUT = Path(__file__).parent / "data"


def _xz(position: dict[str, float]) -> tuple[float, float]:
    return (round(position["x"], 3), round(position["z"], 3))


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
    return {"source": "ThreeDWorld floorplan_floods.json and floorplan_layouts.json (BSD-2, LICENSE-tdw.txt)",
            "scenes": scenes}


def main(shared: str) -> None:
    root = Path(shared)
    OUT.mkdir(exist_ok=True)
    plans = build_floorplans(root / "tdw_floorplans")
    (OUT / "floorplans.json").write_text(json.dumps(plans, indent=1) + "\n")
    dataset = Dataset(root / "dataset_train")
    episodes = [dataset.episode(i).model_dump(mode="json") for i in range(len(dataset.keys()))]
    (OUT / "train.json").write_text(json.dumps(episodes, separators=(",", ":")) + "\n")
    print(f"wrote {OUT / 'floorplans.json'} ({len(plans['scenes'])} scenes), {OUT / 'train.json'} "
          f"({len(episodes)} episodes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/tdw_mat")
