"""What a node may touch: the agent's resources plus its own params, handed in, never imported.

Keeping the LLM, memory, skill book and tracer behind this object is what keeps `nodes/` free of
imports from the CLI, the LLM factory and concrete environments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel


@dataclass
class AgentResources:
    """Per-agent resources, passed to a compiled graph as its LangGraph runtime context."""

    agent_id: str = "agent"
    env: str = "toy"
    lm: Any = None  # a dspy.BaseLM; coopgraph's wraps a LangChain chat model
    memory: Any = None
    skillbook: Any = None
    affordances: Any = None
    kit: Any = None  # the environment's AgentKit (belief, affordances, skill book, message reader)
    tracer: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class NodeContext:
    """One node's view at run time: the agent's resources, its validated params and its prompt."""

    name: str
    registry_name: str
    params: BaseModel
    resources: AgentResources
    prompt: str | None = None
    program: Any = None  # the node's dspy.Module, built once per compiled graph

    @property
    def lm(self) -> Any:
        return self.resources.lm

    @property
    def memory(self) -> Any:
        return self.resources.memory

    @property
    def tracer(self) -> Any:
        return self.resources.tracer
