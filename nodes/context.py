"""What a node may touch: the agent's resources plus its own params, handed in, never imported.

Keeping the LLM, memory, skill book and tracer behind this object is what keeps `nodes/` free of
imports from the CLI, the LLM factory and concrete environments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from pydantic import BaseModel
from typing_extensions import TypeVar

from coopgraph.envs.capabilities import Belief
from coopgraph.envs.protocol import Affordances, AgentKit

if TYPE_CHECKING:
    from coopgraph.memory.agent_memory import AgentMemory


@dataclass
class AgentResources:
    """Per-agent resources, passed to a compiled graph as its LangGraph runtime context."""

    agent_id: str = "agent"
    env: str = "toy"
    lm: Any = None  # a dspy.BaseLM; coopgraph's wraps a LangChain chat model
    memory: AgentMemory | None = None  # outside a checkpointed graph (unit tests, benches); inside, the channels
    affordances: Affordances | None = None
    kit: AgentKit | None = None  # the world's kit (belief, affordances, skill book, message reader, capabilities)
    tracer: Any = None
    agents: list[str] = field(default_factory=list)  # every agent id of the episode, this one included
    seed: int = 0
    belief_factory: Callable[[], Any] | None = None  # a fresh belief (the "forget the world" ablation)


#: A node's params model; `NodeContext[ShortlistParams]` lets the type checker see its fields.
ParamsT = TypeVar("ParamsT", bound=BaseModel, default=BaseModel)


@dataclass
class NodeContext(Generic[ParamsT]):
    """One node's view at run time: the agent's resources, its validated params and its prompt.

    Annotate a node's `ctx` as `NodeContext[ItsParams]` so its params are typed."""

    name: str
    registry_name: str
    params: ParamsT
    resources: AgentResources
    prompt: str | None = None
    program: Any = None  # the node's dspy.Module, built once per compiled graph
    step_memory: AgentMemory | None = None  # the view over this step's channels, when the graph carries them
    sampling: Any = None  # the spec's `llm:` block (graphs.spec.LLMSampling): how its LLM nodes ask

    @property
    def lm(self) -> Any:
        return self.resources.lm

    @property
    def memory(self) -> AgentMemory:
        """The agent's memory: this step's channels in a checkpointed graph, else the resources' memory."""
        if self.step_memory is not None:
            return self.step_memory
        assert self.resources.memory is not None, "a node ran without the agent's memory"
        return self.resources.memory

    @property
    def belief(self) -> Belief:
        """The world's belief (semantic memory), typed by the core protocol; a node that required a capability
        reads it through that capability's protocol (`typing.cast(Rooms, ctx.belief)`)."""
        return self.memory.semantic  # type: ignore[no-any-return]

    @property
    def kit(self) -> AgentKit:
        """The world's kit; graphs always run with one."""
        assert self.resources.kit is not None, "a node ran without the world's kit"
        return self.resources.kit

    @property
    def tracer(self) -> Any:
        return self.resources.tracer
