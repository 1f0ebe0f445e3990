"""The Overcooked agent kit: LLM-Co's state description (belief), feasible actions and action manager.

LLM-Co's cooks do not talk, so messages carry no facts this world reads: `read_message` records nothing.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs import OVERCOOKED_CAPABILITIES
from coopgraph.envs.overcooked.affordances import OvercookedAffordances
from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.env import OvercookedAgentInfo
from coopgraph.envs.overcooked.skillbook import ActionManager
from coopgraph.envs.protocol import AgentKit, Message


def read_message(belief: Any, message: Message) -> None:
    """Nothing to fold in: the whole kitchen is in every observation, and LLM-Co's messages state no facts."""


def make_kit(env_info: OvercookedAgentInfo) -> AgentKit:
    """Registered as the `overcooked` kit; `env_info` is `OvercookedEnv.agent_info(agent_id)`. The second cook
    (`agent_index` 1, Bob) is the one LLM-Co's stalemate rule moves out of the way."""
    belief = OvercookedBelief(env_info.agent_id, env_info)
    return AgentKit(
        belief=belief,
        affordances=OvercookedAffordances(),
        skillbook=ActionManager(belief.kitchen, yields=belief.agent_index == 1),
        read_message=read_message,
        prompt_env="overcooked",
        capabilities=frozenset(OVERCOOKED_CAPABILITIES),
    )
