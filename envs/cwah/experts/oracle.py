"""The full-information oracle: an admissible lower bound on team steps and the best team plan found.

Bound (never above the true optimum): every needed object must be reached, grabbed, carried and put,
so the team needs at least the `count`-th cheapest such delivery per predicate (walking counted as
`ceil((distance - reach) / speed)` steps), and at least the total interaction work plus the carrying
distance (two objects per trip) shared among the agents. Plan: a seeded randomised greedy over who
fetches which object in which order, simulated with the same step costs; the best makespan wins.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field

from coopgraph.envs.cwah.config import CWAHConfig
from coopgraph.envs.cwah.episode import Episode, GoalSpec
from coopgraph.envs.cwah.layout import FloorPlan
from coopgraph.envs.protocol import Affordance, AffordanceGroup, Point

Place = tuple[Point, int]  # position and room


@dataclass(frozen=True)
class Candidate:
    """An object that could serve a predicate, with where it is and what hides it."""

    object_id: int
    name: str
    place: Place
    closed_container: int | None
    goal_index: int


class World:
    """Static facts of an episode the oracle reasons about."""

    def __init__(self, episode: Episode, num_agents: int, config: CWAHConfig) -> None:
        self.episode, self.config = episode, config
        self.floor = FloorPlan(episode.rooms, episode.doors)
        self.objects = {obj.id: obj for obj in episode.objects}
        self.starts: list[Place] = [(s.position, s.room) for s in episode.agent_starts[:num_agents]]
        self.needed: list[int] = []
        self.candidates: list[Candidate] = []
        for index, goal in enumerate(episode.goal):
            done = 0
            for obj in episode.objects:
                if obj.kind != "item" or obj.name != goal.object:
                    continue
                if (obj.on if goal.relation == "ON" else obj.inside) == goal.target:
                    done += 1
                    continue
                holder_id = obj.inside if obj.inside is not None else obj.on
                assert holder_id is not None, "Episode validation puts every item on or inside furniture"
                holder = self.objects[holder_id]
                closed = holder.id if holder.kind == "container" and not holder.is_open else None
                self.candidates.append(Candidate(obj.id, obj.name, holder.fixed_place, closed, index))
            self.needed.append(max(0, goal.count - done))

    def place(self, object_id: int) -> Place:
        obj = self.objects[object_id]
        return obj.position, obj.room  # type: ignore[return-value]

    def metres(self, a: Place, b: Place) -> float:
        return self.floor.distance(a[0], a[1], b[0], b[1])

    def walk_steps(self, a: Place, b: Place, slack: float) -> int:
        """Fewest walk steps to get within `slack` metres of b (admissible)."""
        return math.ceil(max(0.0, self.metres(a, b) - slack) / self.config.walk_speed - 1e-9)

    def target_closed(self, goal: GoalSpec) -> bool:
        target = self.objects[goal.target]
        return target.kind == "container" and not target.is_open


def _bound(world: World) -> float:
    reach, goals = world.config.reach, world.episode.goal
    if not any(world.needed):
        return 0.0
    starts = world.starts

    def opened_by(place: Place) -> int:
        return min(world.walk_steps(s, place, reach) for s in starts) + 1

    per_goal, carry_total, interactions = 0, 0.0, 0
    for index, goal in enumerate(goals):
        need = world.needed[index]
        if need == 0:
            continue
        target = world.place(goal.target)
        target_ready = opened_by(target) if world.target_closed(goal) else 0
        costs, carries = [], []
        for cand in (c for c in world.candidates if c.goal_index == index):
            ready = opened_by(cand.place) if cand.closed_container is not None else 0
            carry = world.walk_steps(cand.place, target, 2 * reach)
            best = min(max(world.walk_steps(s, cand.place, reach), ready) + 1 for s in starts)
            costs.append(max(best + carry, target_ready) + 1)
            carries.append(max(0.0, world.metres(cand.place, target) - 2 * reach))
        if len(costs) < need:
            return math.inf  # not enough objects exist: unsolvable
        per_goal = max(per_goal, sorted(costs)[need - 1])
        carry_total += sum(sorted(carries)[:need])
        interactions += 2 * need + (1 if world.target_closed(goal) else 0)
    work = interactions + carry_total / (world.config.hands * world.config.walk_speed)
    return float(max(per_goal, math.ceil(work / len(starts) - 1e-9)))


def oracle_bound(episode: Episode, num_agents: int, config: CWAHConfig | None = None) -> float:
    """Admissible lower bound on the steps `num_agents` agents need to finish `episode`."""
    return _bound(World(episode, num_agents, config or CWAHConfig()))


@dataclass
class _Agent:
    time: int
    place: Place
    held: list[Candidate] = field(default_factory=list)
    ops: list[tuple[str, Candidate]] = field(default_factory=list)
    finish: int = 0


@dataclass
class TeamPlan:
    """Per-agent high-level actions for a team and the makespan the simulation expects."""

    steps: dict[str, list[Affordance]]
    estimated_steps: int
    bound: float


def _simulate(world: World, rng: random.Random | None) -> tuple[int, list[_Agent]]:
    """One greedy (optionally randomised) construction of a team schedule; returns makespan and agents."""
    reach, hands = world.config.reach, world.config.hands
    agents = [_Agent(0, start) for start in world.starts]
    need = list(world.needed)
    free = list(world.candidates)
    opened: dict[int, int] = {}  # container → step it is open from
    while any(need) or any(a.held for a in agents):
        agent = min((a for a in agents if a.held or any(need)), key=lambda a: a.time)
        options: list[tuple[float, str, Candidate]] = []
        if len(agent.held) < hands:
            for cand in free:
                if need[cand.goal_index] <= 0:
                    continue
                steps = world.walk_steps(agent.place, cand.place, reach)
                wait = (
                    0
                    if cand.closed_container is None
                    or opened.get(cand.closed_container, 10**9) <= agent.time + steps
                    else 1
                )
                target = world.place(world.episode.goal[cand.goal_index].target)
                score = steps + wait + 1 + 0.5 * world.walk_steps(cand.place, target, reach)
                options.append((score, "grab", cand))
        if agent.held:
            target = world.place(world.episode.goal[agent.held[0].goal_index].target)
            put_score = world.walk_steps(agent.place, target, reach) + 1 + (0 if options else -1000)
            if len(agent.held) >= hands:
                put_score -= 1000
            options.append(
                (put_score * (1.5 if rng is None else rng.uniform(0.8, 2.5)), "put", agent.held[0])
            )
        if not options:  # nothing this agent can still do (too few objects exist)
            return 10**9, agents
        options.sort(key=lambda o: o[0])
        pick = (
            options[0]
            if rng is None or len(options) == 1
            else options[min(len(options) - 1, int(rng.expovariate(1.5)))]
        )
        _, kind, cand = pick
        if kind == "grab":
            agent.time += world.walk_steps(agent.place, cand.place, reach)
            if cand.closed_container is not None and opened.get(cand.closed_container, 10**9) > agent.time:
                agent.time += 1
                opened[cand.closed_container] = agent.time
            agent.time += 1
            agent.place = cand.place
            agent.held.append(cand)
            free.remove(cand)
            need[cand.goal_index] -= 1
        else:
            goal = world.episode.goal[cand.goal_index]
            target = world.place(goal.target)
            agent.time += world.walk_steps(agent.place, target, reach)
            if world.target_closed(goal) and opened.get(goal.target, 10**9) > agent.time:
                agent.time += 1
                opened[goal.target] = agent.time
            agent.time += 1
            agent.place = target
            agent.held.remove(cand)
            agent.finish = agent.time
        agent.ops.append((kind, cand))
    return max((a.finish for a in agents), default=0), agents


def _affordances(world: World, ops: list[tuple[str, Candidate]]) -> list[Affordance]:
    plan: list[Affordance] = []
    for kind, cand in ops:
        if kind == "grab":
            room = cand.place[1]
            plan.append(
                Affordance(
                    kind="gograb",
                    group=AffordanceGroup.FETCH,
                    target_id=cand.object_id,
                    target_name=cand.name,
                    room_id=room,
                    room_name=world.floor.room_name(room),
                    via_id=cand.closed_container,
                )
            )
            continue
        goal = world.episode.goal[cand.goal_index]
        target = world.objects[goal.target]
        if plan and plan[-1].kind == "goput" and plan[-1].target_id == target.id:
            plan[-1] = plan[-1].model_copy(update={"target_ids": plan[-1].target_ids + (cand.object_id,)})
        else:
            plan.append(
                Affordance(
                    kind="goput",
                    group=AffordanceGroup.DELIVER,
                    repeatable=True,
                    target_id=target.id,
                    target_name=target.name,
                    room_id=target.room,
                    room_name=world.floor.room_name(target.fixed_place[1]),
                    target_ids=(cand.object_id,),
                )
            )  # type: ignore[arg-type]
    return plan


@functools.lru_cache(maxsize=64)
def plan_team(
    episode: Episode,
    agent_ids: tuple[str, ...],
    config: CWAHConfig | None = None,
    restarts: int = 300,
    seed: int = 0,
) -> TeamPlan:
    """The best schedule found over one greedy and `restarts` randomised constructions."""
    world = World(episode, len(agent_ids), config or CWAHConfig())
    bound = _bound(world)
    if math.isinf(bound):
        return TeamPlan(steps={agent_id: [] for agent_id in agent_ids}, estimated_steps=10**9, bound=bound)
    best_steps, best_agents = _simulate(world, None)
    rng = random.Random(seed)
    for _ in range(restarts):
        steps, agents = _simulate(world, rng)
        if steps < best_steps:
            best_steps, best_agents = steps, agents
    return TeamPlan(
        steps={
            agent_id: _affordances(world, agent.ops)
            for agent_id, agent in zip(agent_ids, best_agents, strict=True)
        },
        estimated_steps=best_steps,
        bound=bound,
    )
