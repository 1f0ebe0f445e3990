"""Everything one agent remembers, in one object handed to nodes through `ctx.memory`.

The world belief and the skill book belong to the environment (semantic and procedural memory); this module
only bundles them with the episodic windows, the optional vector store and the running plan, so it imports no
environment and no vector database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coopgraph.memory.episodic import EpisodicMemory

if TYPE_CHECKING:
    from coopgraph.memory.vector_store import VectorMemory


@dataclass
class AgentMemory:
    """One agent's memory for one episode.

    `semantic` is the environment's belief (C-WAH: `Belief`, with `update(obs)`, `progress_text()`, ...),
    `procedural` its skill book; `notes` is a free slot for method-specific memory (e.g. a CaPo meta-plan).
    """

    semantic: Any
    episodic: EpisodicMemory = field(default_factory=EpisodicMemory)
    procedural: Any = None
    vector: VectorMemory | None = None
    plan: Any = None
    plan_started_step: int | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    def reset_belief(self, factory: Callable[[], Any]) -> None:
        """Replace the belief with a fresh one from `factory` (the "no memory" ablation forgets the world)."""
        self.semantic = factory()

    def close(self) -> None:
        """Free the vector store's collection; call at the end of the episode."""
        if self.vector is not None:
            self.vector.close()
