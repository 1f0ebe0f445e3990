"""A persistent LangChain response cache in SQLite, so a rerun with the same seed is byte-identical.

LangChain keys a lookup by the rendered prompt and the model's parameters (model name,
temperature, grammar, max tokens...). langchain-community's SQLite cache would pull in a large
dependency tree, so this is the few lines it takes over `sqlite3`, safe for parallel processes.
"""

from __future__ import annotations

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


def _plain(generation: Generation) -> dict[str, Any]:
    """Text, usage and metadata only: plain JSON, so reading the cache never builds arbitrary objects."""
    message = getattr(generation, "message", None)
    if message is None:
        return {"content": generation.text}
    metadata = {k: v for k, v in message.response_metadata.items() if isinstance(v, str | int | float | bool)}
    return {"content": message.content, "usage": message.usage_metadata, "metadata": metadata}


class SQLiteResponseCache(BaseCache):
    """Responses keyed by sha256(prompt, llm_string), stored as plain JSON; hits are flagged in metadata."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._conn() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL)")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            self._local.conn = conn
        return conn

    @staticmethod
    def _key(prompt: str, llm_string: str) -> str:
        return hashlib.sha256(f"{llm_string}\x00{prompt}".encode()).hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        row = self._conn().execute(
            "SELECT value FROM responses WHERE key = ?", (self._key(prompt, llm_string),)
        ).fetchone()
        if row is None:
            return None
        return [
            ChatGeneration(message=AIMessage(
                content=item["content"], usage_metadata=item.get("usage"),
                response_metadata={**item.get("metadata", {}), CACHE_HIT: True},
            ))
            for item in json.loads(row[0])
        ]

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        with self._conn() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)",
                (self._key(prompt, llm_string), json.dumps([_plain(g) for g in return_val])),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM responses")
