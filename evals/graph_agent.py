"""A team member driven by a graph spec: one compiled-graph invocation per environment step.

The graph perceives every step and decides only when it has no plan (or, if its spec says so, when a
partner has just spoken); the environment's skill book turns the plan into primitive actions. The
agent owns its memory and LLM; it shares nothing with partners but the environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coopgraph.envs import agent_kit
from coopgraph.envs.protocol import WAIT, Observation, PrimitiveAction
from coopgraph.graphs.compiler import compile_spec
from coopgraph.graphs.loader import LoadedSpec, load_spec
from coopgraph.memory.agent_memory import AgentMemory
from coopgraph.memory.episodic import EpisodicMemory
from coopgraph.memory.vector_store import VectorMemory
from coopgraph.nodes.context import AgentResources


class GraphAgent:
    """Implements the environments' `TeamMember` protocol with a compiled LangGraph graph."""

    def __init__(self, spec: str | Path | LoadedSpec, *, lm: Any, name: str | None = None,
                 vector_memory: bool = True, graph: Any = None) -> None:
        self.loaded = spec if isinstance(spec, LoadedSpec) else load_spec(spec)
        self.graph = graph or compile_spec(self.loaded)
        self.name = name or self.loaded.spec.name
        self.lm = lm
        self.vector_memory = vector_memory
        self.tracer: Any = None
        self.memory: AgentMemory | None = None
        self.resources: AgentResources | None = None

    def set_tracer(self, tracer: Any) -> None:
        self.tracer = tracer
        if self.resources is not None:
            self.resources.tracer = tracer
            self.resources.lm = self.lm.with_tracer(tracer) if hasattr(self.lm, "with_tracer") else self.lm

    def reset(self, agent_id: str, env_info: dict[str, Any], seed: int) -> None:
        env_name = env_info["env"]
        kit = agent_kit(env_name, env_info)
        params = self.loaded.spec.params
        if self.memory is not None and self.memory.vector is not None:
            self.memory.vector.close()
        self.memory = AgentMemory(
            semantic=kit.belief,
            episodic=EpisodicMemory(max_actions=int(params.get("actions_kept", 10)),
                                    max_messages=int(params.get("messages_kept", 3))),
            procedural=kit.skillbook,
            vector=VectorMemory() if self.vector_memory else None,
        )
        lm = self.lm.with_tracer(self.tracer) if hasattr(self.lm, "with_tracer") else self.lm  # own usage counts
        self.resources = AgentResources(
            agent_id=agent_id, env=kit.prompt_env, lm=lm, memory=self.memory, skillbook=kit.skillbook,
            affordances=kit.affordances, kit=kit, tracer=self.tracer,
            extra={"agents": list(env_info.get("agents", [])), "seed": seed,
                   "belief_factory": lambda: agent_kit(env_name, env_info).belief},
        )

    def act(self, observation: Observation) -> PrimitiveAction:
        if self.resources is None:
            raise RuntimeError("GraphAgent.act called before reset")
        state = self.graph.invoke(
            {"step": observation.time, "observation": observation, "decisions": 0}, context=self.resources
        )
        return state.get("action") or WAIT
