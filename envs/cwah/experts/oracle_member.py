"""The oracle as a team member: each agent runs its share of the centralised full-information plan.

It reads the privileged `oracle_episode` from env_info (nothing else does), so it is a reference point
for how fast the team could be, not a fair competitor.
"""

from __future__ import annotations

from coopgraph.envs.cwah.env import CWAHAgentInfo
from coopgraph.envs.cwah.experts.oracle import plan_team
from coopgraph.envs.cwah.skillbook import CWAHSkillBook
from coopgraph.envs.protocol import (
    WAIT,
    Affordance,
    AgentInfo,
    HouseObservation,
    MemberBase,
    Observation,
    PrimitiveAction,
    SkillStatus,
)


class OracleAgent(MemberBase):
    """Executes its own list from `plan_team` with the skill book, skipping steps that fail."""

    def __init__(self, name: str = "oracle", restarts: int = 300) -> None:
        self.name = name
        self.restarts = restarts
        self.todo: list[Affordance] = []

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        if not isinstance(env_info, CWAHAgentInfo):
            raise ValueError(f"oracle plays C-WAH (it needs the env's privileged oracle_episode), not {env_info.env}; "
                             "for TDW-MAT use tdw-oracle")
        config = env_info.config
        plan = plan_team(env_info.oracle_episode, tuple(env_info.agents), config, restarts=self.restarts)
        self.todo = list(plan.steps.get(agent_id, []))
        self.estimated_steps = plan.estimated_steps
        self.skills = CWAHSkillBook.from_env_info(env_info)

    def act(self, observation: Observation) -> PrimitiveAction:
        assert isinstance(observation, HouseObservation), "C-WAH observes a HouseObservation"
        while self.todo:
            step = self.skills.next_action(self.todo[0], observation)
            if step.status is SkillStatus.RUNNING and step.action is not None:
                return step.action
            self.todo.pop(0)
        return WAIT
