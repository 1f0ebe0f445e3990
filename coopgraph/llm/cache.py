"""A persistent LangChain response cache in SQLite, so a rerun with the same seed is byte-identical.

LangChain keys a lookup by the rendered prompt and the model's parameters (model name,
temperature, grammar, max tokens...). langchain-community's SQLite cache would pull in a large
dependency tree, so this is the few lines it takes over `sqlite3`, safe for parallel processes.

A greedy call's key leaves out its per-call model seed (`_without_greedy_seed`): at temperature 0 the seed cannot
change a reply, so every replicate of a deterministic run reads the replies stored before model seeds existed, and
a sampled call's key keeps it, so each replicate samples and stores its own.

A reply the caller finds unusable is evicted (`evict`, with the key `take_last_key` gives for the call just
made), so a retry asks the model again instead of reading the same unusable reply back.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation

CACHE_HIT = "coopgraph_cache_hit"

# Transport knobs of a serialized chat model: how long to wait and how often to retry never changes a reply, so
# keys do not depend on them; they are pinned to the values every key was first written with (timeout 120 s,
# 2 retries), so responses stored before these became settings still answer.
_TRANSPORT_PINNED: dict[str, object] = {"max_retries": 2, "request_timeout": 120.0}


def _without_transport(llm_string: str) -> str:
    """LangChain's `llm_string` (serialized model `---` call params) with the transport knobs pinned."""
    head, sep, tail = llm_string.partition("---")
    if not sep or not head.startswith("{"):
        return llm_string
    try:
        data = json.loads(head)
    except ValueError:
        return llm_string
    kwargs = data.get("kwargs") if isinstance(data, dict) else None
    if not isinstance(kwargs, dict) or not any(k in kwargs for k in _TRANSPORT_PINNED):
        return llm_string
    for name, value in _TRANSPORT_PINNED.items():
        if name in kwargs:
            kwargs[name] = value
    return json.dumps(data, sort_keys=True) + sep + tail


def _call_params(text: str) -> dict[str, Any] | None:
    """LangChain's per-call part of an `llm_string` (`str(sorted(params.items()))`) as a dict; None if unreadable."""
    try:
        pairs = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(pairs, list) or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
        return None
    return dict(pairs)


def _without_greedy_seed(llm_string: str) -> str:
    """The `llm_string` without its per-call `seed` when the call is greedy (temperature 0, per call or the chat
    model's own); a sampled call, or one whose temperature cannot be read, keeps it (a miss, never a wrong hit)."""
    head, sep, tail = llm_string.partition("---")
    calls = tail if sep else head
    if "'seed'" not in calls:
        return llm_string
    params = _call_params(calls)
    if params is None or "seed" not in params:
        return llm_string
    temperature = params.get("temperature")
    if temperature is None and sep:
        try:
            kwargs = json.loads(head).get("kwargs", {})
        except (ValueError, AttributeError):
            return llm_string
        temperature = kwargs.get("temperature") if isinstance(kwargs, dict) else None
    if temperature != 0:
        return llm_string
    del params["seed"]
    kept = str(sorted(params.items()))
    return head + sep + kept if sep else kept


def _plain(generation: Generation) -> dict[str, Any]:
    """Text, usage and metadata only: plain JSON, so reading the cache never builds arbitrary objects."""
    message = getattr(generation, "message", None)
    if message is None:
        return {"content": generation.text}
    metadata = {k: v for k, v in message.response_metadata.items() if isinstance(v, str | int | float | bool)}
    return {"content": message.content, "usage": message.usage_metadata, "metadata": metadata}


#: Serialises setting up a cache file within this process (episodes on threads open their caches together).
_SETUP = threading.Lock()


class SQLiteResponseCache(BaseCache):
    """Responses keyed by sha256(prompt, llm_string), stored as plain JSON; hits are flagged in metadata."""

    def __init__(self, path: str | Path, namespace: str = "") -> None:
        self.path = Path(path)
        self.namespace = namespace  # the weights' identity: a retrained adapter must not answer from old replies
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with _SETUP:  # WAL is a property of the file, set once: threads that set it at once lock each other out
            conn = self._conn()
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            with conn:
                conn.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL)")

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection. Its commits are not synced to disk one by one (`synchronous=NORMAL`, safe with
        WAL: a killed process loses nothing committed, a power cut at most the last replies, which are asked again).
        Every call writes (and an unusable reply is evicted), so with a sync per commit, episodes answered together
        queued on the file's write lock for milliseconds a call, on each call's path to the next."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def _key(self, prompt: str, llm_string: str) -> str:
        scope = f"{self.namespace}\x00" if self.namespace else ""
        call = _without_greedy_seed(_without_transport(llm_string))
        return hashlib.sha256(f"{scope}{call}\x00{prompt}".encode()).hexdigest()

    def take_last_key(self) -> str | None:
        """The key this thread last read a hit from or wrote, then forgotten (call it before and after a call)."""
        key = getattr(self._local, "last_key", None)
        self._local.last_key = None
        return key

    def evict(self, key: str) -> None:
        """Forget one stored response (an unusable reply must not answer the retry)."""
        with self._conn() as conn:
            conn.execute("DELETE FROM responses WHERE key = ?", (key,))

    def lookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        key = self._key(prompt, llm_string)
        row = self._conn().execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self._local.last_key = key
        return [
            ChatGeneration(message=AIMessage(
                content=item["content"], usage_metadata=item.get("usage"),
                response_metadata={**item.get("metadata", {}), CACHE_HIT: True},
            ))
            for item in json.loads(row[0])
        ]

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        key = self._key(prompt, llm_string)
        with self._conn() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)",
                (key, json.dumps([_plain(g) for g in return_val])),
            )
        self._local.last_key = key

    def clear(self, **kwargs: Any) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM responses")
