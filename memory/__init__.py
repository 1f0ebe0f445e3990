"""coopgraph.memory: semantic, episodic and procedural memory plus the offline Chroma vector store.

`AgentMemory` and `EpisodicMemory` import nothing heavy; `VectorMemory` and `MemoryEntry` load Chroma and the
embedding model only when first used from here (or import `coopgraph.memory.vector_store` directly).
"""

from __future__ import annotations

from typing import Any

from coopgraph.memory.agent_memory import AgentMemory
from coopgraph.memory.episodic import ActionRecord, DialogueLine, EpisodicMemory

__all__ = ["ActionRecord", "AgentMemory", "DialogueLine", "EpisodicMemory", "MemoryEntry", "VectorMemory"]


def __getattr__(name: str) -> Any:
    if name in ("VectorMemory", "MemoryEntry"):
        from coopgraph.memory import vector_store

        return getattr(vector_store, name)
    raise AttributeError(f"module 'coopgraph.memory' has no attribute {name!r}")
