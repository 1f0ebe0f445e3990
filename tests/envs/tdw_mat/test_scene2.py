"""Scene 2's rooms, read off its floorplan picture: every dataset object lies in a room of the type CoELA's metadata
records, every start in the house, the Porch (the hallway) is no room but the walkway every door opens on, the doors
join the floors TDW says touch, and RHP plays the test split's scene-2 episodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coopgraph.envs.partners import make_partner
from coopgraph.envs.tdw_mat.episode import split_episodes
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, known_scenes, load_floorplan, shipped_data
from coopgraph.runtime.episode_loop import run_episode
from tests.envs.tdw_mat.conftest import make_env

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "tdw_mat"
FLOORPLANS = SHARED / "tdw_floorplans" / "floorplan_layouts.json"
DATASET = SHARED / "dataset_test"
SCENE2 = [e for e in split_episodes("test") if e.scene == "2a"]


def _plan(layout: int) -> FloorPlan:
    types = shipped_data()["scenes"]["2"]["layouts"][str(layout)]["room_types"]
    return load_floorplan("2a", layout, types)


def _reachable(plan: FloorPlan, start: int) -> set[int]:
    reached, frontier = {start}, [start]
    while frontier:
        for other in plan.neighbours(frontier.pop()):
            if other not in reached:
                reached.add(other)
                frontier.append(other)
    return reached


def test_scene_2_ships_seven_rooms_and_the_porch_as_a_walkway() -> None:
    assert "2" in known_scenes()
    for layout in (0, 1, 2):
        plan = _plan(layout)
        assert plan.rooms[plan.bed_room].type == "Bedroom"
        assert len(plan.rooms) == 7 and all(len(room.boxes) == 1 for room in plan.rooms.values())
        assert [w.type for w in plan.walkways.values()] == ["Porch"] and 6000 not in plan.rooms  # CoELA: None
        hall = plan.walkways[6000]
        assert hall.holds((0.0, 1.0)) and plan.area_of((0.0, 1.0)) == 6000
        assert plan.room_of((0.0, 1.0)) in plan.rooms  # a hallway point belongs to the nearest room, as in CoELA


def test_every_room_is_reached_through_the_hallway_and_doors_join_touching_floors() -> None:
    data = shipped_data()["scenes"]["2"]
    floor_of = {1000 * (int(region) + 1): floor for region, floor in data["region_floor"].items()}
    for layout in (0, 1, 2):
        plan = _plan(layout)
        for a, b in plan.doors:
            assert floor_of[b] in data["adjacent"][floor_of[a]], (a, b)  # floods.json's adjacent_floors
        assert set(plan.neighbours(6000)) == set(plan.rooms)  # floor 4 touches every other floor
        for room in plan.rooms:
            assert _reachable(plan, room) == set(plan.rooms) | {6000}


def test_a_door_in_a_wall_is_walked_through_square_to_it() -> None:
    plan = _plan(0)
    inside_top_middle, bottom_middle = (-0.76, 3.7), (0.5, -2.0)
    route = plan.route(inside_top_middle, bottom_middle)
    assert len(route) == 7  # before, at and after each of two doors, then the goal
    assert [plan.area_of(p) for p in route[:6]] == [4000, 4000, 6000, 6000, 8000, 8000]
    assert route[0][0] == route[1][0] == route[2][0]  # straight across the wall, not along it


@pytest.mark.parametrize("episode", SCENE2, ids=lambda e: e.key)
def test_every_object_and_start_lies_in_the_house_and_objects_in_their_labelled_room(episode) -> None:  # noqa: ANN001
    plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
    for obj in episode.objects:
        room = plan.room_of(obj.position)
        assert plan.rooms[room].holds(obj.position) and plan.rooms[room].type == obj.room_type, obj
    for start in episode.starts:
        assert plan.contains(start) and plan.room_of(start) in plan.rooms


@pytest.mark.skipif(not DATASET.is_dir(), reason="needs ../shared/data/tdw_mat/dataset_test (the source data)")
def test_all_162_objects_of_the_scene_files_get_their_recorded_room_type() -> None:
    """Distractors too: CoELA's generator labels a position with the first region (by index) whose box holds it."""
    types = json.loads((DATASET / "room_types.json").read_text())["2"]
    checked = 0
    for layout in (0, 1, 2):
        boxes = [(index, box) for index, floor in sorted(shipped_data()["scenes"]["2"]["region_floor"].items(),
                                                          key=lambda item: int(item[0]))
                 for box in shipped_data()["scenes"]["2"]["room_boxes"][floor]]
        for setting in (0, 1):
            stem = f"2a_{layout}_{setting}"
            added = [c for c in json.loads((DATASET / f"{stem}.json").read_text()) if c.get("$type") == "add_object"]
            labels = json.loads((DATASET / f"{stem}_metadata.json").read_text())["object_room_list"]
            for command, (_, label) in zip(added, labels, strict=True):
                x, z = command["position"]["x"], command["position"]["z"]
                region = next(int(i) for i, b in boxes if b[0] <= x <= b[2] and b[1] <= z <= b[3])
                assert types[layout][region] == label, (stem, command["name"], x, z)
                checked += 1
    assert checked == 162


@pytest.mark.skipif(not FLOORPLANS.is_file(), reason="needs ../shared/data/tdw_mat (the source data)")
def test_kitchen_furniture_lies_in_the_kitchen_in_every_layout() -> None:
    layouts = json.loads(FLOORPLANS.read_text())["2"]
    for layout in (0, 1, 2):
        plan = _plan(layout)
        for item in layouts[str(layout)]:
            if any(part in item["name"] for part in ("fridge", "dishwasher", "toaster")):
                room = plan.room_of((item["position"]["x"], item["position"]["z"]))
                assert plan.rooms[room].type == "Kitchen", item["name"]


def test_the_agent_at_the_porch_start_grasps_the_plate_beside_it() -> None:
    """The trace of issue 34: RHP started on the "Porch" and was refused this plate, 0.9 m away, three times."""
    env = make_env("test/2a_0_0/food", num_agents=2)
    plate = next(t for t in env.world.things.values() if t.name == "plate")
    alice = env.world.agents["alice"]
    assert env.plan.rooms[alice.room_id].type == "Livingroom" == env.plan.rooms[plate.room_id].type
    obs, *_ = env.step({"alice": f"[grasp] <plate> ({plate.id})", "bob": "[wait]"})
    while not obs["alice"].ready:
        obs, *_ = env.step({"alice": "[wait]", "bob": "[wait]"})
    assert obs["alice"].last_action_ok and plate.holder == "alice"


def test_rhp_transports_on_the_scene_2_test_episode_it_failed() -> None:
    """`test/2a_0_0/food` with oracle perception: RHP alone transported 0.0 and a pair 0.2 before the fix."""
    alone = run_episode(make_env("test/2a_0_0/food", num_agents=1), [make_partner("rhp")], seed=0)
    pair = run_episode(make_env("test/2a_0_0/food", num_agents=2), [make_partner("rhp"), make_partner("rhp")],
                       seed=0)
    assert alone.metrics["transport_rate"] > 0 and pair.metrics["transport_rate"] >= 0.5


def test_the_trace_map_draws_the_hallway_beside_the_rooms() -> None:
    layout = make_env("test/2a_0_0/food").layout()
    hallway = [r for r in layout["rooms"] if r["id"] == 6000]
    assert len(layout["rooms"]) == 9 and len(hallway) == 2 and "no room" in hallway[0]["name"]
