"""RHP, CoELA's rule-based hierarchical planner for TDW-MAT, as its reference code behaves (docs/envs/tdw-mat.md).

It decides a sub-goal (a target, a container, the bed), goes to a known object of that kind chosen at random, or
explores a random unseen cell of its seen-cell grid when it knows none, grasps (up to three tries), puts a target
into a held container, and drops everything at the bed. It never sends a message. Frame thresholds: bring what
is held to the bed after `max - 700` frames, look for containers only before `max - 1400`. It walks with the same
steering as the skill book, on the floorplan's doors instead of A* around furniture.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from coopgraph.envs.protocol import WAIT, HouseObservation, MemberBase, Observation, Point, PrimitiveAction
from coopgraph.envs.tdw_mat.belief import Known, TDWBelief
from coopgraph.envs.tdw_mat.floorplan import distance
from coopgraph.envs.tdw_mat.navigation import steer
from coopgraph.envs.tdw_mat.perception import CELL, SEEN_RANGE, cells_in_view

TARGET, CONTAINER, BED, DECIDE = 0, 1, 2, -1
Mode = Literal["nav", "move", "interact"]
NAV_EVENTS, NAV_WITHIN, MOVE_EVENTS, MOVE_WITHIN, BED_WITHIN, GRASP_TRIES = 80, 2.0, 150, 1.0, 1.5, 3
SEED = 1024


class RHPAgent(MemberBase):
    """A `TeamMember` playing RHP on `tdw-mat`."""

    def __init__(self, name: str = "rhp") -> None:
        self.name = name

    def reset(self, agent_id: str, env_info: Any, seed: int) -> None:  # the world's AgentInfo
        self.belief = TDWBelief(agent_id, env_info)
        self.plan = self.belief.plan
        self.rules = self.belief.rules
        self.rng = random.Random(SEED + seed)
        self.unseen: set[tuple[int, int]] = set(self.plan.cells(CELL))
        self.satisfied: set[int] = set()
        self.unreachable: set[int] = set()
        self.sub_goal = DECIDE
        self.mode: Mode | None = None
        self.goal_id: int | None = None
        self.goal_point: Point | None = None
        self.events = 0
        self.tries = 0
        self.content_container = 0
        self._look: tuple[Point, float] | None = None

    # ------------------------------------------------------------------------------------------- memory
    def _observe(self, obs: HouseObservation) -> None:
        belief = self.belief
        belief.update(obs)
        look = (obs.position, belief.heading)
        if look != self._look:
            self._look = look
            reach = SEEN_RANGE[self.rules.perception]
            self.unseen.difference_update(cells_in_view(self.plan, obs.position, belief.heading, obs.room_id,
                                                        reach, self.rules.view_degrees))
        for obj in obs.visible_objects:
            if obj.held_by is not None and obj.kind == "item":
                self.satisfied.add(obj.id)
        self.satisfied |= belief.transported

    def _free(self, kind: int) -> list[Known]:
        belief = self.belief
        if kind == BED:
            return [belief.objects[belief.bed_id]] if belief.bed_seen else []
        pool = belief.free_targets() if kind == TARGET else belief.free_containers()
        return [o for o in pool if o.id not in self.satisfied and o.id not in self.unreachable
                and o.inside is None and o.held_by is None]

    def _held(self) -> list[Known]:
        return [self.belief.objects[i] for i in self.belief.hand_items]

    # ------------------------------------------------------------------------------------------- deciding
    def _decide(self, frames: int) -> int:
        held = self._held()
        limit = self.rules.max_frames
        accounted = len(self.satisfied | {o.id for o in held if o.kind == "item"}
                        | {i for c in self.belief.contents.values() for i in c})
        if held and frames > limit - 700:
            return BED
        if held and accounted >= sum(p.count for p in self.belief.goal):
            return BED
        if any(o.kind == "container" for o in held):
            return BED if self.content_container >= self.rules.container_capacity else TARGET
        if len(held) == 2:
            return BED
        return CONTAINER if frames < limit - 1400 else TARGET

    def _choose(self, frames: int) -> None:
        self.sub_goal = self._decide(frames)
        self.events, self.tries = 0, 0
        known = self._free(self.sub_goal)
        if known:
            choice = self.rng.choice(known)
            self.mode, self.goal_id, self.goal_point = "move", choice.id, choice.position
            return
        self.mode, self.goal_id = "nav", None
        cells = sorted(self.unseen)
        cell = self.rng.choice(cells) if cells else self.rng.choice(sorted(self.plan.cells(CELL)))
        self.goal_point = ((cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL)

    def _preempt(self, frames: int) -> bool:
        """While exploring, a container (when one is still wanted) or an object of the sub-goal's kind in view."""
        wanted = []
        if self.sub_goal < BED and not any(o.kind == "container" for o in self._held()) \
                and frames < self.rules.max_frames - 1400:
            wanted = self._free(CONTAINER)
        wanted += self._free(self.sub_goal)
        if not wanted:
            return False
        choice = min(wanted, key=lambda o: distance(self.belief.position, o.position or self.belief.position))
        self.mode, self.goal_id, self.goal_point, self.events = "move", choice.id, choice.position, 0
        self.sub_goal = TARGET if choice.kind == "item" else CONTAINER if choice.kind == "container" else BED
        return True

    # ------------------------------------------------------------------------------------------- acting
    def act(self, observation: Observation) -> PrimitiveAction:
        assert isinstance(observation, HouseObservation), "RHP plays TDW-MAT"
        obs = observation
        self._observe(obs)
        after = self._after(obs)
        if after is not None:
            return after
        for _ in range(4):
            action = self._step(obs)
            if action is not None:
                return action
        return WAIT

    def _after(self, obs: HouseObservation) -> PrimitiveAction | None:
        """Follow up what the last primitive did: a grasp that worked may call for a put-in."""
        last = obs.last_action or ""
        if self.mode != "interact" or not last.startswith("[grasp]"):
            return None
        held = self._held()
        if obs.last_action_ok:
            grabbed = next((o for o in held if o.id == self.goal_id), None)
            self.mode = None
            if grabbed is not None and grabbed.kind == "container":
                self.content_container = 0
            kinds = {o.kind for o in held}
            if {"container", "item"} <= kinds:
                self.content_container += 1
                return PrimitiveAction(kind="put_in")
            return None
        self.tries += 1
        if self.tries >= GRASP_TRIES and self.goal_id is not None:
            self.unreachable.add(self.goal_id)
            self.mode = None
        return None

    def _step(self, obs: HouseObservation) -> PrimitiveAction | None:
        frames = obs.time
        if self.mode is None:
            self._choose(frames)
        self.events += 1
        position, heading = obs.position, self.belief.heading
        if self.mode == "nav":
            if self._preempt(frames):
                return None
            if self.goal_point is None or self.events > NAV_EVENTS or distance(position, self.goal_point) <= NAV_WITHIN:
                self.mode = None
                return None
            return steer(self.plan, position, heading, self.goal_point)
        if self.mode == "move":
            if self.sub_goal == BED:
                if not self._held():
                    self.mode = None
                    return WAIT if self._done() else None
                bed = self.plan.bed
                if obs.room_id == self.plan.bed_room and distance(position, bed) <= BED_WITHIN:
                    self.mode = "interact"
                    return self._drop()
                if self.events > MOVE_EVENTS:
                    return self._give_up()
                return steer(self.plan, position, heading, bed)
            target = self.belief.objects.get(self.goal_id or -1)
            if target is None or target not in self._free(self.sub_goal) or target.position is None:
                self.mode = None
                return None
            if distance(position, target.position) <= MOVE_WITHIN:
                self.mode = "interact"
                return PrimitiveAction(kind="grasp", target_id=target.id, target_name=target.name)
            if self.events > MOVE_EVENTS:
                return self._give_up()
            return steer(self.plan, position, heading, target.position)
        if self.mode == "interact":
            if self.sub_goal == BED:
                return self._drop()
            target = self.belief.objects.get(self.goal_id or -1)
            if target is None or target not in self._free(self.sub_goal):
                self.mode = None
                return None
            return PrimitiveAction(kind="grasp", target_id=target.id, target_name=target.name)
        return None

    def _drop(self) -> PrimitiveAction | None:
        """Left hand, then right; what was held counts as transported."""
        held = self.belief.hand_items
        if not held:
            self.mode = None
            return None
        self.satisfied |= set(held) | {i for c in self.belief.contents.values() for i in c}
        return PrimitiveAction(kind="drop", target_id=held[0], target_name=self.belief.objects[held[0]].name)

    def _give_up(self) -> PrimitiveAction | None:
        """After too many events: forget this object and decide again (no action this round)."""
        if self.goal_id is not None and self.sub_goal != BED:
            self.unreachable.add(self.goal_id)
        self.mode = None
        return None

    def _done(self) -> bool:
        return len(self.satisfied) >= sum(p.count for p in self.belief.goal)
