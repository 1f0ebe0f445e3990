"""The toyhouse agent kit: belief, action list, skill book, message reader and news reporter for one agent."""

from __future__ import annotations

from coopgraph.envs import TOYHOUSE_CAPABILITIES
from coopgraph.envs.protocol import AgentKit
from coopgraph.testing.toyhouse.affordances import HouseAffordances
from coopgraph.testing.toyhouse.belief import HouseBelief
from coopgraph.testing.toyhouse.env import ToyhouseAgentInfo
from coopgraph.testing.toyhouse.messages import read_message
from coopgraph.testing.toyhouse.news import HouseNews
from coopgraph.testing.toyhouse.skillbook import HouseSkillBook


def make_kit(env_info: ToyhouseAgentInfo) -> AgentKit:
    """Registered as the `toyhouse` kit; `env_info` is `ToyhouseEnv.agent_info(agent_id)`."""
    belief = HouseBelief(env_info.agent_id, env_info)
    return AgentKit(
        belief=belief,
        affordances=HouseAffordances(),
        skillbook=HouseSkillBook(hands=belief.hands),
        read_message=read_message,
        prompt_env="toyhouse",
        capabilities=frozenset(TOYHOUSE_CAPABILITIES),
        news=lambda b: HouseNews(b.rules.max_message_chars),
    )
