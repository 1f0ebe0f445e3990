"""TDW-MAT's full-information oracle: an admissible bound on what a team can deliver, and a greedy team plan.

Bound (never beaten): a target needs an agent to walk to within grasp reach (0.7 m after the grasp's own walk),
a grasp, and a carry to within 3 m of the bed; walking straight is the shortest any agent can walk (the text world
has no collisions), so one target cannot be delivered faster than `single`. A carry holds at most a container of
three plus one in hand, so each target's share of the team's walking is at least a quarter of its carry, plus its
grasp. The most targets the team can deliver in the horizon is the largest k whose k cheapest shares fit in
`agents x horizon` frames and whose k-th fastest `single` fits in the horizon; the least frames for all targets
is the larger of the slowest `single` and the shares split evenly. Plan: containers first, then each trip
fills a container with the three nearest free targets and a hand with a fourth (two by hand when no container is
left), and carries them to the bed; trips go to whichever agent is free first, timed with the same frame costs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from coopgraph.envs.tdw_mat.episode import TDWEpisode
from coopgraph.envs.tdw_mat.floorplan import FloorPlan, Point, distance, load_floorplan
from coopgraph.envs.tdw_mat.rules import TDWRules
from coopgraph.envs.tdw_mat.world import World

#: A hand carries one target; a container holds `container_capacity` more.
HAND = 1


@dataclass(frozen=True)
class Bound:
    """Admissible limits for one episode and team size: no team delivers more, none delivers all sooner."""

    transport_rate: float
    frames: float  # least frames to deliver every target (inf when not possible within the horizon)


@dataclass(frozen=True)
class Op:
    """One step of an agent's plan: grasp an object, put the held target in the held container, or deliver."""

    kind: Literal["grasp", "put_in", "deliver"]
    object_id: int | None = None
    position: Point | None = None
    room_id: int | None = None


@dataclass
class _Agent:
    position: Point
    time: float = 0.0
    ops: list[Op] = field(default_factory=list)


def _world(episode: TDWEpisode, num_agents: int, rules: TDWRules) -> World:
    plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
    agent_ids = [f"a{i}" for i in range(num_agents)]
    return World(episode, plan, agent_ids, rules)


def _carry(plan: FloorPlan, point: Point, rules: TDWRules) -> float:
    """Metres a target at `point` must travel at least to count (into the 3 m zone around the bed)."""
    return max(distance(point, plan.bed) - rules.goal_radius, 0.0)


def tdw_bound(episode: TDWEpisode, num_agents: int, rules: TDWRules | None = None) -> Bound:
    """The admissible upper bound on transport rate and lower bound on frames for `num_agents` agents."""
    rules = rules or TDWRules()
    world = _world(episode, num_agents, rules)
    plan, speed = world.plan, rules.metres_per_frame
    starts = [body.position for body in world.agents.values()]
    singles, shares = [], []
    per_trip = rules.container_capacity + HAND
    for target_id in world.targets:
        point = world.things[target_id].position
        reach = min(max(distance(s, point) - rules.grasp_arrive, 0.0) for s in starts)
        carry = _carry(plan, point, rules)
        singles.append((reach + carry) / speed + rules.frames_grasp)
        shares.append(carry / per_trip / speed + rules.frames_grasp)
    singles.sort()
    shares.sort()
    budget, horizon = num_agents * rules.max_frames, rules.max_frames
    most = 0
    for k in range(1, len(singles) + 1):
        if singles[k - 1] <= horizon and sum(shares[:k]) <= budget:
            most = k
    frames = max(singles[-1], sum(shares) / num_agents) if singles else 0.0
    return Bound(transport_rate=most / len(singles) if singles else 1.0,
                 frames=frames if most == len(singles) else math.inf)


def _nearest(points: dict[int, Point], here: Point, bed: Point) -> int:
    """The free object nearest `here`, ties (and near-ties) broken toward the bed."""
    return min(points, key=lambda i: (distance(here, points[i]) + 0.3 * distance(points[i], bed), i))


def plan_team(episode: TDWEpisode, num_agents: int, rules: TDWRules | None = None) -> list[list[Op]]:
    """Per agent, its ops: trips that each take a container (while any is left) with three targets and a fourth in
    hand, or two targets by hand, to the bed; the next trip goes to the agent that the estimate frees first."""
    rules = rules or TDWRules()
    world = _world(episode, num_agents, rules)
    plan, speed = world.plan, rules.metres_per_frame
    targets = {i: world.things[i].position for i in world.targets}
    containers = {o.id: world.things[o.id].position for o in episode.containers}
    agents = [_Agent(body.position) for body in world.agents.values()]

    def grasp(agent: _Agent, object_id: int, point: Point) -> None:
        agent.time += plan.walk_distance(agent.position, point) / speed + rules.frames_grasp
        agent.position = point
        agent.ops.append(Op("grasp", object_id, point, world.things[object_id].room_id))

    while targets:
        agent = min(agents, key=lambda a: a.time)
        hands = 2
        if containers and len(targets) > hands:
            chosen = _nearest(containers, agent.position, plan.bed)
            grasp(agent, chosen, containers.pop(chosen))
            for _ in range(min(rules.container_capacity, len(targets) - 1)):
                chosen = _nearest(targets, agent.position, plan.bed)
                grasp(agent, chosen, targets.pop(chosen))
                agent.ops.append(Op("put_in"))
                agent.time += rules.frames_put_in
            hands = 1
        for _ in range(min(hands, len(targets))):
            chosen = _nearest(targets, agent.position, plan.bed)
            grasp(agent, chosen, targets.pop(chosen))
        agent.time += plan.walk_distance(agent.position, plan.bed) / speed + 2 * rules.frames_drop
        agent.position = plan.bed
        agent.ops.append(Op("deliver", position=plan.bed, room_id=plan.bed_room))
    return [a.ops for a in agents]
