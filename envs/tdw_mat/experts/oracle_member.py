"""The TDW-MAT oracle as a team member: each agent walks its share of the full-information plan (`tdw_oracle.py`).

It reads the privileged `oracle_episode` (every object's position) from env_info, so it is a reference point for
how much a team could transport, not a fair competitor. It steers like RHP and the skill book, grasps from the
edge of reach, and drops everything once in the bedroom near the bed; a grasp that fails three times is skipped.
"""

from __future__ import annotations

from coopgraph.envs.protocol import WAIT, AgentInfo, HouseObservation, MemberBase, Observation, PrimitiveAction
from coopgraph.envs.tdw_mat.env import TDWAgentInfo
from coopgraph.envs.tdw_mat.experts.oracle import Op, plan_team
from coopgraph.envs.tdw_mat.floorplan import distance
from coopgraph.envs.tdw_mat.navigation import steer

#: Grasp from this far (inside the 2 m range), and drop this near the bed (inside the 3 m zone).
GRASP_FROM, DROP_WITHIN, TRIES = 1.8, 2.0, 3


class TDWOracleAgent(MemberBase):
    """Executes its own ops from `plan_team`, one primitive per event."""

    def __init__(self, name: str = "tdw-oracle") -> None:
        self.name = name
        self.ops: list[Op] = []

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        if not isinstance(env_info, TDWAgentInfo) or env_info.env != "tdw-mat":
            raise ValueError("tdw-oracle plays TDW-MAT (it needs the env's privileged oracle_episode); for C-WAH "
                             "use oracle")
        rules = env_info.rules
        agents = list(env_info.agents)
        self.ops = list(plan_team(env_info.oracle_episode, len(agents), rules)[agents.index(agent_id)])
        self.plan, self.rules = env_info.floorplan, rules
        self.tries = 0

    def act(self, observation: Observation) -> PrimitiveAction:
        assert isinstance(observation, HouseObservation), "tdw-oracle plays TDW-MAT"
        obs = observation
        self._follow_up(obs)
        while self.ops:
            action = self._next(obs, self.ops[0])
            if action is not None:
                return action
            self.ops.pop(0)
            self.tries = 0
        return WAIT

    def _follow_up(self, obs: HouseObservation) -> None:
        """After an interaction ends: a grasp that worked (or failed too often) and a put-in are done."""
        last = obs.last_action or ""
        if not self.ops or not obs.ready:
            return
        op = self.ops[0]
        if op.kind == "grasp" and last.startswith("[grasp]") and f"({op.object_id})" in last:
            self.tries += 1
            if obs.last_action_ok or self.tries >= TRIES:
                self.ops.pop(0)
                self.tries = 0
        elif op.kind == "put_in" and last.startswith("[put_in]"):
            self.ops.pop(0)

    def _next(self, obs: HouseObservation, op: Op) -> PrimitiveAction | None:
        """The primitive for `op` now, or None when it is done (or cannot be done)."""
        heading = float(getattr(obs, "heading", 0.0))
        if op.kind == "put_in":
            return PrimitiveAction(kind="put_in")
        if op.kind == "grasp":
            assert op.position is not None
            near = GRASP_FROM if self.tries == 0 else 0.5
            if distance(obs.position, op.position) <= near and (obs.room_id == op.room_id or self.tries > 0):
                return PrimitiveAction(kind="grasp", target_id=op.object_id)
            return steer(self.plan, obs.position, heading, op.position)
        hands = [o for o in obs.holding if o.inside is None]
        if not hands:
            return None
        if obs.room_id == self.plan.bed_room and distance(obs.position, self.plan.bed) <= DROP_WITHIN:
            return PrimitiveAction(kind="drop", target_id=hands[0].id, target_name=hands[0].name)
        return steer(self.plan, obs.position, heading, self.plan.bed)
