"""The play page's house map holds only what the person's agent knows: the house's shape, then per turn its place,
the rooms it has seen, the objects its belief places and the partners in sight; never the world's truth."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from coopgraph import envs
from coopgraph.envs.registry import agent_kit
from coopgraph.play.known_map import house_layout, known_map


def _first_look(env_name: str, episode: str = "test/0") -> tuple[Any, Any, Any, str]:
    env = envs.make(env_name, episode=episode, num_agents=2)
    observations, _ = env.reset(seed=0)
    agent = env.possible_agents[0]
    kit = agent_kit(env_name, env.agent_info(agent))
    kit.belief.update(observations[agent])
    return env, observations[agent], kit.belief, agent


def test_the_page_gets_the_house_shape_without_its_objects() -> None:
    env, *_ = _first_look("cwah")
    shape = house_layout(env.layout())
    assert shape is not None and set(shape) == {"kind", "rooms", "doors"} and shape["kind"] == "house"
    assert len(shape["rooms"]) == len(env.layout()["rooms"])
    tdw, *_ = _first_look("tdw-mat")
    floor = house_layout(tdw.layout())
    assert floor is not None and set(floor) == {"kind", "rooms", "doors", "goal_radius"}
    assert floor["kind"] == "floorplan" and floor["goal_radius"] == 3.0
    grid = {"kind": "grid", "terrain": ["XPX"]}
    assert house_layout(grid) is grid and house_layout(None) is None and house_layout({"rooms": []}) is None


def test_cwah_map_shows_the_first_room_and_only_what_was_seen() -> None:
    env, obs, belief, _ = _first_look("cwah")
    known = known_map(obs, belief)
    assert known is not None and known["room_id"] == obs.room_id and known["rooms_seen"] == [obs.room_id]
    seen = {o.id for o in obs.visible_objects}
    drawn = {o["id"] for o in known["objects"]}
    assert drawn and drawn <= seen
    hidden = [o["id"] for o in env.layout()["objects"] if o["kind"] == "item" and o["id"] not in seen]
    assert hidden and not drawn & set(hidden)
    spots = [tuple(o["position"]) for o in known["objects"] if o["kind"] == "item"]
    assert len(spots) == len(set(spots)), "items on one piece of furniture are spread around it"


def test_tdw_map_has_the_agents_place_and_heading() -> None:
    _, obs, belief, _ = _first_look("tdw-mat")
    known = known_map(obs, belief)
    assert known is not None and known["heading"] == obs.heading and known["room_id"] == obs.room_id
    assert known["position"] == [float(obs.position[0]), float(obs.position[1])]
    assert known["rooms_seen"] == [obs.room_id] and known["partners"] == []


def test_rooms_partly_looked_over_count_as_seen() -> None:
    """TDW-MAT marks a room `part` explored after one look (its `explored_rooms` holds only whole sweeps)."""
    _, obs, _, _ = _first_look("tdw-mat")
    others = [room.id for room in obs.rooms if room.id != obs.room_id]
    belief = SimpleNamespace(explored={others[0]: "part", others[1]: "none", others[2]: "all"},
                             explored_rooms={others[2]}, objects={})
    known = known_map(obs, belief)
    assert known is not None and known["rooms_seen"] == sorted([obs.room_id, others[0], others[2]])


def test_grid_worlds_have_no_house_map() -> None:
    _, obs, belief, _ = _first_look("overcooked", "cramped_room")
    assert known_map(obs, belief) is None
