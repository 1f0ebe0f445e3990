"""Perception: a view cone within range in the agent's own room; `oracle` sees all of it, `detector` misses."""

from __future__ import annotations

import random

from coopgraph.envs.tdw_mat.env import TDWMatEnv
from coopgraph.envs.tdw_mat.perception import visible_things
from tests.envs.tdw_mat.conftest import make_env, place, put_thing, things


def _seen(env: TDWMatEnv, seed: int = 0) -> set[int]:
    return {t.id for t in visible_things(env.world, env.world.agents["alice"], random.Random(seed))}


def test_the_cone_sees_ahead_not_behind_nor_through_walls(env: TDWMatEnv) -> None:
    ahead, behind, elsewhere = things(env, "target")[:3]
    place(env, "alice", (0.74, -2.78), heading=0.0)  # living room, facing +z
    put_thing(env, ahead, (0.74, -1.0))
    put_thing(env, behind, (0.74, -4.5))
    put_thing(env, elsewhere, (6.49, -2.78))  # the office next door
    seen = _seen(env)
    assert ahead.id in seen and behind.id not in seen and elsewhere.id not in seen
    env.world.agents["alice"].heading = 180.0
    seen = _seen(env)
    assert behind.id in seen and ahead.id not in seen


def test_the_observation_lists_what_is_seen_with_room_and_distance(env: TDWMatEnv) -> None:
    apple = things(env, "target")[0]
    place(env, "alice", (0.74, -2.78))
    put_thing(env, apple, (0.74, -1.78))
    obs, *_ = env.step({"alice": "[turn_left]", "bob": "[wait]"})
    info = obs["alice"].visible(apple.id)
    assert info is not None and info.room_id == env.plan.room_of((0.74, -1.78)) and info.distance == 1.0


def test_the_detector_misses_by_class_and_the_oracle_never_does() -> None:
    blind = make_env(perception="detector", p_miss={"food": 1.0, "stuff": 1.0, "container": 0.0, "bed": 0.0})
    oracle = make_env(perception="oracle", p_miss={"food": 1.0})
    placed: dict[str, set[int]] = {}
    for name, env in (("blind", blind), ("oracle", oracle)):
        place(env, "alice", (0.74, -2.78))
        chosen = things(env, "target")[:3] + things(env, "container")[:1]
        for index, thing in enumerate(chosen):
            put_thing(env, thing, (0.74 + 0.3 * index - 0.45, -1.5))
        placed[name] = {t.id for t in chosen}
    container = things(blind, "container")[0].id
    assert _seen(blind) & placed["blind"] == {container}
    assert all(blind.world.things[i].kind != "target" for i in _seen(blind))
    assert placed["oracle"] <= _seen(oracle)


def test_detector_misses_are_random_but_seeded() -> None:
    env = make_env(perception="detector", p_miss={"food": 0.5})
    place(env, "alice", (0.74, -2.78))
    for index, thing in enumerate(things(env, "target")[:6]):
        put_thing(env, thing, (0.74 + 0.3 * index - 0.75, -1.5))
    runs = [frozenset(_seen(env, seed)) for seed in range(8)]
    assert len(set(runs)) > 1 and _seen(env, 3) == _seen(env, 3)
