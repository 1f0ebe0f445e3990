"""Runs one episode: steps a PettingZoo parallel environment with a team of `TeamMember`s, records metrics
and (optionally) writes trace events.

Events: `episode_start`, one `env_step` per step (every agent's primitive action, room, position, held
items, message and info), a per-agent `message` event for every message (bound to the agent), and
`episode_end` with the metrics. Time is the world's own: the clock and horizon come from the observations
(C-WAH steps, TDW-MAT frames), and an agent whose observation says it is not `ready` (its last action still
runs) is sent WAIT without being asked, so actions and messages cost what the world says they cost.

A wall-clock budget (`wall_budget_s`) is the one exception to the world's time: a run that may not take longer than
so many seconds (a benchmark on a slow model) ends at the end of the first step that passes it, never mid-step, and
its result and `episode_end` say where it stopped (`stopped_at_budget`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from pettingzoo import ParallelEnv

from coopgraph.envs.protocol import WAIT, Message, MetricValue, TeamMember, World, WorldMetrics
from coopgraph.runtime.joint_step import HeldTracer, JointDecider
from coopgraph.runtime.result import BudgetStop, RunResult


def check_step_budget(value: object, name: str = "max_steps") -> int | None:
    """`value` as a step budget (None: the world's horizon), or one ValueError naming `name` (`--max-steps` for the
    CLI): the one check of a budget, made by the loop and, before anything is built, by the launch and the CLI."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of 1 or more, got {value!r} (leave it out to run to the "
                         "world's horizon)")
    return value


def check_wall_budget(value: object, name: str = "wall_budget_s") -> float | None:
    """`value` as a wall-clock budget in seconds (None: none), or one ValueError naming `name`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0 or value == float("inf"):
        raise ValueError(f"{name} must be a number of seconds above 0, got {value!r} (leave it out for no budget)")
    return float(value)


def _metrics(result: WorldMetrics) -> tuple[dict[str, MetricValue], dict[str, dict[str, float]]]:
    per_agent = {
        agent: {k: float(v) for k, v in m.model_dump().items()} for agent, m in result.per_agent.items()
    }
    return dict(result.summary()), per_agent


def _as_world(env: ParallelEnv) -> World:
    """`env` seen as a `World`; a separate name keeps `env` typed as the `ParallelEnv` it is stepped through."""
    if not isinstance(env, World):
        raise TypeError(f"{type(env).__name__} does not implement coopgraph.envs.protocol.World (name, episode_id, "
                        "time_unit, default_episode, agent_info, metrics, layout); coopgraph.testing.check_world "
                        "says what is missing")
    return env


def _as_members(team: Sequence[object]) -> list[TeamMember]:
    """`team` seen as `TeamMember`s, or one TypeError naming the first member that is not one."""
    members: list[TeamMember] = []
    for member in team:
        if not isinstance(member, TeamMember):
            raise TypeError(f"{type(member).__name__} does not implement coopgraph.envs.protocol.TeamMember (name, "
                            "decides_concurrently, samples, reset, act, set_tracer, llm_usage, close); inherit "
                            "coopgraph.envs.protocol.MemberBase for the defaults of a member that asks no model, and "
                            "coopgraph.testing.check_member says what is missing")
        members.append(member)
    return members


def run_episode(
    env: ParallelEnv,
    team: Sequence[TeamMember],
    *,
    max_steps: int | None = None,
    tracer: Any = None,
    seed: int = 0,
    wall_budget_s: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> RunResult:
    """Reset `env` with `seed`, let `team[i]` play agent i until success or the horizon, return the result.

    With `wall_budget_s`, the episode also ends at the end of the first step after which more than that many
    seconds of `clock` have passed since it started (a test passes its own clock)."""
    started = clock()
    max_steps = check_step_budget(max_steps)
    wall_budget_s = check_wall_budget(wall_budget_s)
    world = _as_world(env)
    team = _as_members(team)
    observations, _ = env.reset(seed=seed)
    agents = list(env.possible_agents)
    if len(team) != len(agents):
        raise ValueError(
            f"the environment has {len(agents)} agents ({', '.join(agents)}) but the team has "
            f"{len(team)} members"
        )
    members = dict(zip(agents, team, strict=True))
    first = next(iter(observations.values()))
    horizon = min(max_steps, first.horizon) if max_steps else first.horizon
    bound = {agent: HeldTracer(tracer.bind(agent=agent)) for agent in agents} if tracer is not None else {}
    for index, (agent, member) in enumerate(members.items()):
        member.reset(agent, world.agent_info(agent), seed + index)
        if agent in bound:
            member.set_tracer(bound[agent])
    env_name, episode_id = world.name, world.episode_id
    layout = world.layout() if tracer is not None else None
    if tracer is not None:
        tracer.event(
            "episode_start",
            env=env_name,
            episode=episode_id,
            seed=seed,
            agents=agents,
            team=[m.name for m in team],
            max_steps=horizon,
            goal=first.goal_text,
            **({"wall_budget_s": wall_budget_s} if wall_budget_s is not None else {}),
            **({"layout": layout} if layout is not None else {}),
        )
    messages: list[Message] = []
    steps, success = first.time, False
    stopped: BudgetStop | None = None
    decider = JointDecider(members, bound)
    try:
        while env.agents and steps < horizon:
            ready = [agent for agent in env.agents if observations[agent].ready]
            decided = decider.decide(observations, ready)  # the ready agents ask their models together
            actions = {agent: decided.get(agent, WAIT) for agent in env.agents}
            observations, _, terminations, truncations, infos = env.step(actions)
            steps = max((obs.time for obs in observations.values()), default=steps + 1)
            record: dict[str, Any] = {}
            for agent, info in infos.items():
                text = info.get("message")
                if text:
                    message = Message(
                        sender=agent, text=text, step=steps, truncated=bool(info.get("message_truncated")),
                        to=info.get("message_to"),
                    )
                    messages.append(message)
                    if agent in bound:
                        bound[agent].event(
                            "message", step=steps, text=text, chars=len(text), truncated=message.truncated,
                            **({"to": message.to} if message.to is not None else {}),
                        )
                record[agent] = dict(info)  # action, ok, reason, room, position, holding, message, ...
            success = bool(terminations) and all(terminations.values())
            if tracer is not None:
                first_info: dict[str, Any] = next(iter(infos.values()), {})
                tracer.event("env_step", step=steps, agents=record, subgoals_done=first_info.get("subgoals_done"))
            if success or (truncations and all(truncations.values())):
                break
            elapsed = clock() - started
            if wall_budget_s is not None and elapsed > wall_budget_s and env.agents and steps < horizon:
                stopped = BudgetStop(step=steps, max_steps=horizon, budget_s=wall_budget_s,
                                     wall_time_s=round(elapsed, 4))
                break
    finally:
        decider.close()
    metrics, per_agent = _metrics(world.metrics())
    result = RunResult(
        env=env_name,
        episode_id=episode_id,
        team=[m.name for m in team],
        agents=agents,
        success=bool(metrics.get("success", success)),
        steps=steps,
        max_steps=horizon,
        metrics=metrics,
        per_agent=per_agent,
        messages=messages,
        trace_path=str(tracer.path) if tracer is not None and getattr(tracer, "path", None) else None,
        wall_time_s=round(clock() - started, 4),
        stopped_at_budget=stopped,
    )
    if tracer is not None:
        tracer.event(
            "episode_end",
            env=env_name,
            episode=episode_id,
            success=result.success,
            steps=steps,
            metrics=metrics,
            per_agent=per_agent,
            **({"stopped_at_budget": stopped.model_dump()} if stopped is not None else {}),
        )
    return result
