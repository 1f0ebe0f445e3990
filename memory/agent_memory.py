"""Everything one agent remembers during one step, in one object handed to nodes through `ctx.memory`.

Inside a graph this is a view over the step's channels (belief, episodic history, running plan, each method's
record): the graph's state owns them and the checkpointer saves them. Only the vector store is not state: it
is a Chroma collection, rebuilt from its recorded entries when a checkpoint is restored. The world belief and
the skill book belong to the environment; this module imports neither, nor any vector database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coopgraph.memory.episodic import EpisodicMemory

if TYPE_CHECKING:
    from coopgraph.memory.vector_store import VectorMemory


@dataclass
class RunningPlan:
    """The plan being carried out and the skill book carrying it out, kept together so a restored checkpoint
    resumes the plan where the skill book left it (the skill book recognises its plan by identity)."""

    plan: Any = None
    started_step: int | None = None
    skillbook: Any = None


@dataclass
class VectorLog:
    """What went into the vector store, batch by batch: a Chroma collection is not state, so a restored
    checkpoint rebuilds the store by adding these again (entry ids come from the content, so it is exact)."""

    keys: set[str] = field(default_factory=set)  # sighting lines already stored
    batches: list[list[dict[str, Any]]] = field(default_factory=list)


@dataclass
class AgentMemory:
    """One agent's memory: `semantic` is the world's belief, `procedural` the skill book, `running` the plan it
    is carrying out, `channels` the records of the method families the graph wires (CaPo's discussion, ...)."""

    semantic: Any
    episodic: EpisodicMemory = field(default_factory=EpisodicMemory)
    procedural: Any = None
    vector: VectorMemory | None = None
    running: RunningPlan = field(default_factory=RunningPlan)
    channels: dict[str, Any] = field(default_factory=dict)
    vector_log: VectorLog = field(default_factory=VectorLog)
    factories: Mapping[str, Callable[[], Any] | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.running.skillbook is None:
            self.running.skillbook = self.procedural
        self.procedural = self.running.skillbook

    @property
    def plan(self) -> Any:
        """The plan being carried out (the world's affordance), or None."""
        return self.running.plan

    @plan.setter
    def plan(self, value: Any) -> None:
        self.running.plan = value

    @property
    def plan_started_step(self) -> int | None:
        return self.running.started_step

    @plan_started_step.setter
    def plan_started_step(self, value: int | None) -> None:
        self.running.started_step = value

    def channel(self, name: str, factory: Callable[[], Any] | None = None) -> Any:
        """A method family's record (e.g. `capo`), created on first use from `factory` or the registered one."""
        if name not in self.channels:
            factory = factory or self.factories.get(name)
            if factory is None:
                raise KeyError(f"channel {name!r} is not part of this agent's state (known: "
                               f"{', '.join(sorted(self.channels)) or 'none'})")
            self.channels[name] = factory()
        return self.channels[name]

    def remember(self, items: list[dict[str, Any]]) -> None:
        """Add lines to the vector store (one write) and log them, so a restored checkpoint can rebuild it."""
        if self.vector is None or not items:
            return
        self.vector.add_many(items)
        self.vector_log.batches.append(items)

    def reset_belief(self, factory: Callable[[], Any]) -> None:
        """Replace the belief with a fresh one from `factory` (the "no memory" ablation forgets the world)."""
        self.semantic = factory()

    def close(self) -> None:
        """Free the vector store's collection; call at the end of the episode."""
        if self.vector is not None:
            self.vector.close()
