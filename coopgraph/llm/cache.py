"""A persistent LangChain response cache in SQLite, so a rerun with the same seed is byte-identical.

LangChain keys a lookup by the rendered prompt and the model's parameters (model name,
temperature, grammar, max tokens...). langchain-community's SQLite cache would pull in a large
dependency tree, so this is the few lines it takes over `sqlite3`, safe for parallel processes.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.load import dumps, loads
from langchain_core.outputs import Generation

CACHE_HIT = "coopgraph_cache_hit"


class SQLiteResponseCache(BaseCache):
    """Responses keyed by sha256(prompt, llm_string); hits are flagged in the message metadata."""

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
        generations = loads(row[0])
        for generation in generations:
            message = getattr(generation, "message", None)
            if message is not None:
                message.response_metadata[CACHE_HIT] = True
        return generations

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        with self._conn() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)",
                (self._key(prompt, llm_string), dumps(list(return_val))),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM responses")
