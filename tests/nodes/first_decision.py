"""Shared by the node tests: one agent's first decision in a C-WAH house, with a scripted planner."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from coopgraph import envs
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. \[\w+\]", re.MULTILINE)


def first_decision(spec: str | Path, episode: str = "test/0") -> tuple[GraphAgent, list[str]]:
    """Alice's first step under `spec`, choosing the last listed action: the agent and the user prompt of every
    call that listed actions (a message draft lists none)."""
    env = envs.make("cwah", episode=episode, num_agents=2)
    observations, _ = env.reset(seed=0)

    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        listed = OPTION.findall(messages[-1].content)
        return f"Reasoning: go\nAnswer: {listed[-1]}" if listed else "Hello."

    lm = scripted_lm(model)
    agent = GraphAgent(spec, lm=lm)
    agent.reset("alice", env.agent_info("alice"), 0)
    agent.act(observations["alice"])
    return agent, [m[-1].content for m, _ in lm.chat_model.calls if OPTION.search(m[-1].content)]
