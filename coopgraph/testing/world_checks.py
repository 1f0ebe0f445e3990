"""`check_world`: the conformance test of a world against the `World` protocol, public beside `check_kit`.

The runtime asks a world for its name, episode id, time unit, default episode, typed agent info, metrics and
layout without probing for them, so a world that lacks one fails at its first episode. `check_world` builds the
world by name (on its declared default episode), resets it and asserts, with a message naming what is wrong:
- it is a PettingZoo `ParallelEnv` and implements `coopgraph.envs.protocol.World`;
- `name` is the registered name, `episode_id` a non-empty string, `time_unit` one of `TimeUnit`'s values,
  `default_episode` the one registered with the world;
- `agent_info(agent)` is an `AgentInfo` subclass of the world's own for every agent, naming that agent, the
  world and its episode, with `max_steps` equal to the observations' horizon;
- `metrics()` has `success`, `steps`, typed `per_agent` models for every agent and a `summary()` of numbers
  (or, for a figure split by agent, a mapping of every agent to a number);
- `layout()` is None or JSON-able.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, get_args

from pettingzoo import ParallelEnv
from pydantic import BaseModel

from coopgraph.envs.protocol import AgentInfo, MetricValue, TimeUnit, World
from coopgraph.envs.registry import default_episode, make


@dataclass
class WorldReport:
    """What `check_world` saw: the world's type, episode, unit and the type of its agent info and metrics."""

    env: str
    world_type: str
    episode_id: str
    time_unit: str
    info_type: str
    metrics_type: str
    agents: list[str] = field(default_factory=list)
    summary: dict[str, MetricValue] = field(default_factory=dict)


def _finite(value: object) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def _check(env_name: str, condition: object, message: str) -> None:
    if not condition:
        raise AssertionError(f"check_world({env_name!r}): {message}")


def check_world(env_name: str, episode: str | None = None, num_agents: int = 2, **options: Any) -> WorldReport:
    """Build world `env_name` (on `episode`, else its declared default episode), reset it and check that it
    implements the `World` protocol; raises AssertionError naming the world and the problem."""
    episode = episode if episode is not None else default_episode(env_name)
    env = make(env_name, episode=episode, num_agents=num_agents, **options)
    try:
        return _check_world(env_name, env, episode)
    finally:
        env.close()


def _check_world(env_name: str, env: Any, episode: str) -> WorldReport:
    _check(env_name, isinstance(env, ParallelEnv), f"{type(env).__name__} is not a PettingZoo ParallelEnv")
    missing = [m for m in ("name", "episode_id", "time_unit", "default_episode", "agent_info", "metrics", "layout")
               if not hasattr(env, m)]
    _check(env_name, isinstance(env, World) and not missing,
           f"{type(env).__name__} does not implement the World protocol: missing {missing}")
    world: World = env
    observations, _ = env.reset(seed=0)
    _check(env_name, world.name == env_name, f"name is {world.name!r}, registered as {env_name!r}")
    _check(env_name, isinstance(world.episode_id, str) and world.episode_id,
           f"episode_id must be a non-empty string, got {world.episode_id!r}")
    units = get_args(TimeUnit)
    _check(env_name, world.time_unit in units, f"time_unit {world.time_unit!r} is not one of {units}")
    _check(env_name, world.default_episode == default_episode(env_name),
           f"default_episode {world.default_episode!r} differs from the registered {default_episode(env_name)!r}")
    agents = list(env.possible_agents)
    info_types = set()
    for agent in agents:
        info = world.agent_info(agent)
        _check(env_name, isinstance(info, AgentInfo) and type(info) is not AgentInfo,
               f"agent_info({agent!r}) must be the world's own AgentInfo subclass, got {type(info).__name__}")
        info_types.add(type(info).__name__)
        _check(env_name, info.agent_id == agent and info.env == env_name and info.agents == agents,
               f"agent_info({agent!r}) names agent {info.agent_id!r} of {info.env!r} among {info.agents}")
        _check(env_name, info.episode_id == world.episode_id,
               f"agent_info({agent!r}).episode_id {info.episode_id!r} is not the world's {world.episode_id!r}")
        horizon = observations[agent].horizon
        _check(env_name, info.max_steps == horizon,
               f"agent_info({agent!r}).max_steps {info.max_steps} differs from the observations' horizon {horizon}")
    metrics = world.metrics()
    _check(env_name, isinstance(metrics, BaseModel), f"metrics() must be a pydantic model, got {type(metrics)}")
    _check(env_name, isinstance(metrics.success, bool) and isinstance(metrics.steps, int),
           "metrics() needs a bool `success` and an int `steps`")
    _check(env_name, set(metrics.per_agent) == set(agents) and all(isinstance(m, BaseModel)
                                                                    for m in metrics.per_agent.values()),
           f"metrics().per_agent must hold a typed model for each of {agents}, got {sorted(metrics.per_agent)}")
    summary = dict(metrics.summary())
    _check(env_name, all(_finite(v) or (isinstance(v, dict) and set(v) == set(agents) and all(map(_finite, v.values())))
                         for v in summary.values()) and {"success", "steps"} <= set(summary),
           f"metrics().summary() must map names (success and steps among them) to finite floats, or to a float for "
           f"each of {agents}, got {summary}")
    layout = world.layout()
    try:
        json.dumps(layout)
    except (TypeError, ValueError) as error:
        raise AssertionError(f"check_world({env_name!r}): layout() is not JSON-able: {error}") from None
    return WorldReport(env=env_name, world_type=type(env).__name__, episode_id=world.episode_id,
                       time_unit=world.time_unit, info_type=" | ".join(sorted(info_types)),
                       metrics_type=type(metrics).__name__, agents=agents, summary=summary)
