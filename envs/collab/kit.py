"""The games' agent kits: the reference prompt's state (belief), its lettered actions, one-turn skills.

LLM-Co's players do not talk, so a message states no fact either world reads: `read_message` records nothing.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs import COLLAB_CAPABILITIES
from coopgraph.envs.collab.affordances import CaptureAffordances, EscapeAffordances
from coopgraph.envs.collab.belief import CaptureBelief, EscapeBelief
from coopgraph.envs.collab.capture_env import CaptureAgentInfo
from coopgraph.envs.collab.escape_env import EscapeAgentInfo
from coopgraph.envs.collab.skillbook import TurnSkills
from coopgraph.envs.protocol import AgentKit, Message


def read_message(belief: Any, message: Message) -> None:
    """Nothing to fold in: the whole map is in every observation, and the reference's players never talk."""


def make_capture_kit(env_info: CaptureAgentInfo) -> AgentKit:
    """Registered as the `collab-capture` kit; `env_info` is `CaptureEnv.agent_info(agent_id)`."""
    return AgentKit(belief=CaptureBelief(env_info.agent_id, env_info), affordances=CaptureAffordances(),
                    skillbook=TurnSkills(), read_message=read_message, prompt_env="collab-capture",
                    capabilities=frozenset(COLLAB_CAPABILITIES))


def make_escape_kit(env_info: EscapeAgentInfo) -> AgentKit:
    """Registered as the `collab-escape` kit; `env_info` is `EscapeEnv.agent_info(agent_id)`."""
    return AgentKit(belief=EscapeBelief(env_info.agent_id, env_info), affordances=EscapeAffordances(),
                    skillbook=TurnSkills(), read_message=read_message, prompt_env="collab-escape",
                    capabilities=frozenset(COLLAB_CAPABILITIES))


def make_kit(env_info: CaptureAgentInfo | EscapeAgentInfo) -> AgentKit:
    """The kit of whichever game `env_info` comes from (its type)."""
    if isinstance(env_info, CaptureAgentInfo):
        return make_capture_kit(env_info)
    return make_escape_kit(env_info)
