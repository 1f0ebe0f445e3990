"""Helpers for TDW-MAT tests: a world on a shipped train episode, with agents and objects placed by hand."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.tdw_mat.env import TDWMatEnv
from coopgraph.envs.tdw_mat.world import BED_ID, Thing


def make_env(episode: str = "train/0", **options: Any) -> TDWMatEnv:
    env = envs.make("tdw-mat", episode=episode, **options)
    assert isinstance(env, TDWMatEnv)
    env.reset(seed=0)
    return env


def place(env: TDWMatEnv, agent: str, position: tuple[float, float], heading: float = 0.0) -> None:
    body = env.world.agents[agent]
    body.position, body.heading, body.room_id = position, heading, env.plan.room_of(position)


def things(env: TDWMatEnv, kind: str) -> list[Thing]:
    return [t for t in env.world.things.values() if t.kind == kind]


def put_thing(env: TDWMatEnv, thing: Thing, position: tuple[float, float]) -> None:
    thing.position, thing.room_id = position, env.plan.room_of(position)


@pytest.fixture
def env() -> TDWMatEnv:
    return make_env()


__all__ = ["BED_ID", "make_env", "place", "put_thing", "things"]
