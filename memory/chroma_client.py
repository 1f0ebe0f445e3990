"""The process's Chroma clients: telemetry off, and an in-memory system whose index cache stays bounded.

Chroma runs one in-memory system per process. It caches the HNSW index of every collection it has served, up
to (open-file limit / 5) indexes, which is 4,000 here, and deleting a collection does not evict its index. One
collection per agent per episode would grow the process by about 2.6 MB per episode (5 GB after 2,000 agent
episodes). So we start the in-memory system ourselves with a cache of HNSW_CACHE_SIZE indexes; memory then levels
off at about 390 MB. Evicting the index of a collection that is still in use is not safe in Chroma 1.5: queries
can fail with "Error finding id". The cache therefore has to stay well above the number of memories open at
once, and VectorMemory warns when that margin gets thin.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import chromadb
from chromadb.api import ClientAPI, ServerAPI
from chromadb.api.client import Client
from chromadb.api.shared_system_client import SharedSystemClient
from chromadb.config import Settings, System

HNSW_CACHE_SIZE = 64  # indexes kept hot: far more than the memories a run keeps open at once (one per agent)


def chroma_settings() -> Settings:
    """The Settings every client here uses: telemetry off, no reset API. Any other in-memory client in the
    process must use equal settings, because Chroma refuses a second in-memory system with different ones."""
    return Settings(anonymized_telemetry=False, allow_reset=False)


@cache
def ephemeral_client() -> ClientAPI:
    """The process's in-memory Chroma. All in-memory clients share one system, so memories are kept apart
    by collection (each VectorMemory makes its own), not by client."""
    settings = chroma_settings()
    # Chroma has no public setting for the cache size: build the system, size the cache, then start it. If
    # something else already started the in-memory system, share it as Chroma would (with its default cache).
    if SharedSystemClient._get_identifier_from_settings(settings) in SharedSystemClient._identifier_to_system:
        return chromadb.EphemeralClient(settings=settings)
    system = System(settings)
    server = system.instance(ServerAPI)  # type: ignore[type-abstract]
    if hasattr(server, "hnsw_cache_size"):
        server.hnsw_cache_size = HNSW_CACHE_SIZE
    system.start()
    return Client.from_system(system)


def index_cache_size(client: ClientAPI) -> int | None:
    """How many HNSW indexes the client's system keeps cached (None when Chroma does not say)."""
    system: System = client._system  # type: ignore[attr-defined]
    return getattr(system.instance(ServerAPI), "hnsw_cache_size", None)  # type: ignore[type-abstract]


def persistent_client(path: str | Path) -> ClientAPI:
    """A client storing under `path` (Chroma shares one system per path)."""
    return chromadb.PersistentClient(path=str(path), settings=chroma_settings())
