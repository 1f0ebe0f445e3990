"""Scene 2's hand-fitted rooms: every layout loads, its furniture lands in rooms of the right type, the doors join
every room, and RHP plays a generated scene-2 episode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coopgraph.envs.baselines import make_baseline
from coopgraph.envs.tdw_mat.floorplan import known_scenes, load_floorplan, shipped_data
from coopgraph.evals.runner import run_episode
from tests.envs.tdw_mat.conftest import make_env

FLOORPLANS = Path("/work/shared/data/tdw_mat/tdw_floorplans/floorplan_layouts.json")


def _plan(layout: int):  # noqa: ANN202 - a FloorPlan
    types = shipped_data()["scenes"]["2"]["layouts"][str(layout)]["room_types"]
    return load_floorplan("2a", layout, types)


def test_scene_2_ships_with_its_bed_in_the_bedroom_and_a_connected_door_graph() -> None:
    assert "2" in known_scenes()
    for layout in (0, 1, 2):
        plan = _plan(layout)
        assert plan.rooms[plan.bed_room].type == "Bedroom"
        assert len(plan.rooms) == 8 and all(room.boxes for room in plan.rooms.values())
        reached, frontier = {plan.bed_room}, [plan.bed_room]
        while frontier:
            for other in plan.neighbours(frontier.pop()):
                if other not in reached:
                    reached.add(other)
                    frontier.append(other)
        assert reached == set(plan.rooms)
        hall = next(r for r in plan.rooms.values() if r.type == "Porch")
        assert set(plan.neighbours(hall.id)) == set(plan.rooms) - {hall.id}  # floor 4 touches every floor
    assert _plan(1).room_of((0.37, -4.12)) == 8000  # a box contains the point: the bottom-middle room


@pytest.mark.skipif(not FLOORPLANS.is_file(), reason="needs ../shared/data/tdw_mat (the source data)")
def test_kitchen_furniture_lies_in_the_kitchen_in_every_layout() -> None:
    layouts = json.loads(FLOORPLANS.read_text())["2"]
    for layout in (0, 1, 2):
        plan = _plan(layout)
        for item in layouts[str(layout)]:
            if any(part in item["name"] for part in ("fridge", "dishwasher", "toaster")):
                room = plan.room_of((item["position"]["x"], item["position"]["z"]))
                assert plan.rooms[room].type == "Kitchen", item["name"]


def test_rhp_plays_a_scene_2_episode_to_the_horizon() -> None:
    env = make_env("generated/1/2a_0_0/food", num_agents=2)
    result = run_episode(env, [make_baseline("rhp"), make_baseline("rhp")])
    assert env.episode.scene == "2a"
    assert result.steps == 3000 or result.metrics["transport_rate"] == 1.0
    assert result.metrics["transport_rate"] > 0
