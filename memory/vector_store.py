"""Retrieval memory: one Chroma collection per agent per episode, with REVECA-style relevance metadata.

Texts are embedded offline by the static model in `memory.embeddings`. Chroma metadata holds only scalars:
object ids are kept as a string such as ",12,305," for reading back, plus one boolean key per object
(`obj_305: True`) because Chroma's `$contains` does not match substrings of string metadata.
"""

from __future__ import annotations

import contextlib
import hashlib
import uuid
import warnings
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from chromadb.api import ClientAPI
from pydantic import BaseModel, Field

from coopgraph.memory.chroma_client import HNSW_CACHE_SIZE, ephemeral_client, persistent_client
from coopgraph.memory.embeddings import FULL_DIM, StaticEmbeddingFunction
from coopgraph.memory.levels import RANK as RELEVANCE_RANK
from coopgraph.memory.levels import Relevance

Kind = Literal["observation", "message", "action"]
KINDS: tuple[str, ...] = get_args(Kind)
UNRATED = "unrated"  # stored for relevance None, so `$nin` filters see a value on every entry


class MemoryEntry(BaseModel):
    """One remembered line as retrieval returns it; `distance` is the cosine distance to the query."""

    id: str
    text: str
    kind: Kind
    step: int
    room: str | None = None
    object_ids: list[int] = Field(default_factory=list)
    relevance: Relevance | None = None
    source: str = "seen"
    distance: float | None = None


def encode_object_ids(object_ids: Iterable[int]) -> str:
    """`[12, 305]` -> `",12,305,"` (sorted, unique; `""` for none)."""
    ids = sorted({int(i) for i in object_ids})
    return f",{','.join(map(str, ids))}," if ids else ""


def decode_object_ids(encoded: str) -> list[int]:
    return [int(part) for part in encoded.split(",") if part]


def object_key(object_id: int) -> str:
    return f"obj_{int(object_id)}"


def _check_relevance(level: str | None) -> None:
    if level is not None and level not in RELEVANCE_RANK:
        raise ValueError(f"relevance must be one of {sorted(RELEVANCE_RANK)} or None, got {level!r}")


def _prepare(text: str, *, kind: str, step: int, room: str | None = None, object_ids: Sequence[int] = (),
             relevance: str | None = None, source: str = "seen") -> tuple[str, str, dict[str, Any]]:
    """Validate one line and build its id (kind + objects + text) and scalar metadata."""
    text = text.strip()
    if not text:
        raise ValueError("cannot remember an empty text")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    _check_relevance(relevance)
    encoded = encode_object_ids(object_ids)
    entry_id = "e-" + hashlib.sha1(f"{kind}\x1f{encoded}\x1f{text}".encode()).hexdigest()[:20]
    metadata: dict[str, Any] = {
        "kind": kind,
        "step": int(step),
        "room": room or "",
        "object_ids": encoded,
        "relevance": relevance or UNRATED,
        "relevance_rank": RELEVANCE_RANK[relevance] if relevance else -1,
        "source": source,
    }
    metadata |= {object_key(i): True for i in decode_object_ids(encoded)}
    return entry_id, text, metadata


def _merged(old: dict[str, Any], new: dict[str, Any], *, only_changes: bool = False) -> dict[str, Any]:
    """An entry seen again: the step only moves forward; a given relevance replaces the old one."""
    changes: dict[str, Any] = {"step": max(int(old.get("step", new["step"])), int(new["step"]))}
    if new["relevance"] != UNRATED:
        changes |= {"relevance": new["relevance"], "relevance_rank": new["relevance_rank"]}
    return changes if only_changes else old | changes


_OPEN_IN_MEMORY: set[str] = set()  # names of in-memory collections not yet dropped, for the cache-margin warning


def _drop_collection(client: ClientAPI, name: str) -> None:
    _OPEN_IN_MEMORY.discard(name)
    with contextlib.suppress(Exception):  # already gone (client reset, second close): nothing left to free
        client.delete_collection(name)


class VectorMemory:
    """An agent's retrieval memory for one episode.

    In memory by default (the collection is deleted by `close()` or when the object is garbage-collected,
    so long runs do not accumulate collections); with `path`, the collection persists on disk and
    `close()` leaves it there.
    """

    def __init__(self, *, path: str | Path | None = None, name: str | None = None, dim: int = FULL_DIM) -> None:
        self.persistent = path is not None
        self.client: ClientAPI = persistent_client(path) if path is not None else ephemeral_client()
        self.name = name or f"memory-{uuid.uuid4().hex}"
        self.collection = self.client.get_or_create_collection(
            self.name, embedding_function=StaticEmbeddingFunction(dim=dim),  # type: ignore[arg-type]
            configuration={"hnsw": {"space": "cosine"}},
        )
        self.closed = False
        self._finalizer: weakref.finalize | None = None
        if not self.persistent:
            self._finalizer = weakref.finalize(self, _drop_collection, self.client, self.name)
            self._finalizer.atexit = False  # at interpreter exit the process's memory goes anyway
            _OPEN_IN_MEMORY.add(self.name)
            if len(_OPEN_IN_MEMORY) > HNSW_CACHE_SIZE // 2:
                warnings.warn(
                    f"{len(_OPEN_IN_MEMORY)} in-memory VectorMemory objects are open; Chroma caches "
                    f"{HNSW_CACHE_SIZE} indexes and fails on evicted ones in use. close() finished episodes.",
                    RuntimeWarning, stacklevel=2,
                )

    # --- writing ---

    def add(self, text: str, *, kind: str, step: int, room: str | None = None, object_ids: Sequence[int] = (),
            relevance: str | None = None, source: str = "seen") -> str:
        """Store one line and return its id. The same text about the same objects is stored once: adding it
        again only moves its step forward (and sets its relevance when one is given)."""
        return self.add_many([{"text": text, "kind": kind, "step": step, "room": room, "object_ids": object_ids,
                               "relevance": relevance, "source": source}])[0]

    def add_many(self, items: Iterable[Mapping[str, Any]]) -> list[str]:
        """`add` for several lines at once (each a mapping of `add`'s arguments); one Chroma write for all,
        about ten times cheaper per line than separate calls. Returns the ids in input order."""
        self._check_open()
        fresh: dict[str, tuple[str, dict[str, Any]]] = {}
        ids: list[str] = []
        for item in items:
            entry_id, text, metadata = _prepare(**item)
            ids.append(entry_id)
            if entry_id in fresh:  # repeated within the batch: merge like a later add would
                fresh[entry_id] = (text, _merged(fresh[entry_id][1], metadata))
            else:
                fresh[entry_id] = (text, metadata)
        if not fresh:
            return ids
        found = self.collection.get(ids=list(fresh), include=["metadatas"])
        stored = dict(zip(found["ids"], found["metadatas"] or [{}] * len(found["ids"]), strict=True))
        updates: dict[str, dict[str, Any]] = {}
        for entry_id, (_, metadata) in fresh.items():
            if entry_id in stored:
                old = dict(stored[entry_id] or {})
                changes = _merged(old, metadata, only_changes=True)
                if any(old.get(key) != value for key, value in changes.items()):  # skip writes that change nothing
                    updates[entry_id] = changes
        if updates:
            self.collection.update(ids=list(updates), metadatas=list(updates.values()))
        new = [(i, text, meta) for i, (text, meta) in fresh.items() if i not in stored]
        if new:
            self.collection.add(ids=[i for i, _, _ in new], documents=[t for _, t, _ in new],
                                metadatas=[m for _, _, m in new])
        return ids

    def update_relevance(self, entry_id: str, level: str | None) -> None:
        """Rate an entry strong/medium/low/none (or None: unrated), e.g. after a REVECA relevance call."""
        self._check_open()
        _check_relevance(level)
        if not self.collection.get(ids=[entry_id], include=[])["ids"]:
            raise KeyError(f"no memory entry {entry_id!r}")
        rank = RELEVANCE_RANK[level] if level else -1
        self.collection.update(ids=[entry_id], metadatas=[{"relevance": level or UNRATED, "relevance_rank": rank}])

    # --- reading ---

    def recall(self, query: str, k: int = 5, *, kinds: Iterable[str] | None = None, min_relevance: str | None = None,
               exclude_relevance: Iterable[str] = ("none",), object_id: int | None = None) -> list[MemoryEntry]:
        """The `k` entries nearest to `query`, nearest first, among those the filters let through.

        `min_relevance` keeps rated entries at or above a level (unrated ones drop out); `exclude_relevance`
        drops entries rated at the listed levels (unrated ones stay); `object_id` keeps entries about it.
        """
        self._check_open()
        _check_relevance(min_relevance)
        total = self.collection.count()
        if k <= 0 or total == 0 or not query.strip():
            return []
        where = self._where(kinds, min_relevance, tuple(exclude_relevance), object_id)
        found = self.collection.query(query_texts=[query], n_results=min(k, total), where=where,
                                      include=["documents", "metadatas", "distances"])
        ids = found["ids"][0]
        documents = (found["documents"] or [[]])[0]
        metadatas = (found["metadatas"] or [[]])[0]
        distances = (found["distances"] or [[]])[0]
        return [self._entry(i, d, m, dist) for i, d, m, dist in zip(ids, documents, metadatas, distances, strict=True)]

    def get(self, entry_id: str) -> MemoryEntry | None:
        """The entry with this id, or None."""
        self._check_open()
        found = self.collection.get(ids=[entry_id], include=["documents", "metadatas"])
        if not found["ids"]:
            return None
        return self._entry(entry_id, (found["documents"] or [""])[0], (found["metadatas"] or [{}])[0], None)

    def count(self) -> int:
        self._check_open()
        return self.collection.count()

    # --- lifetime ---

    def close(self) -> None:
        """Free the episode's collection (in-memory stores only; a persistent one stays on disk). Idempotent."""
        if self.closed:
            return
        self.closed = True
        if self._finalizer is not None:
            self._finalizer()

    def __enter__(self) -> VectorMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- helpers ---

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError(f"vector memory {self.name} is closed")

    @staticmethod
    def _where(kinds: Iterable[str] | None, min_relevance: str | None, exclude: tuple[str, ...],
               object_id: int | None) -> dict[str, Any] | None:
        clauses: list[dict[str, Any]] = []
        if kinds is not None:
            wanted = list(kinds)
            unknown = [k for k in wanted if k not in KINDS]
            if unknown:
                raise ValueError(f"unknown kinds {unknown}; kinds are {KINDS}")
            clauses.append({"kind": {"$in": wanted}})
        if min_relevance is not None:
            clauses.append({"relevance_rank": {"$gte": RELEVANCE_RANK[min_relevance]}})
        if exclude:
            for level in exclude:
                _check_relevance(level)
            clauses.append({"relevance": {"$nin": list(exclude)}})
        if object_id is not None:
            clauses.append({object_key(object_id): True})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    @staticmethod
    def _entry(entry_id: str, text: str | None, meta: Any, distance: float | None) -> MemoryEntry:
        meta = dict(meta or {})
        relevance = meta.get("relevance", UNRATED)
        return MemoryEntry(
            id=entry_id,
            text=text or "",
            kind=meta.get("kind", "observation"),
            step=int(meta.get("step", 0)),
            room=meta.get("room") or None,
            object_ids=decode_object_ids(str(meta.get("object_ids", ""))),
            relevance=None if relevance == UNRATED else relevance,
            source=str(meta.get("source", "seen")),
            distance=None if distance is None else float(distance),
        )
