"""Where an agent's checkpoints go: LangGraph's in-memory saver by default, its SQLite saver when a run asks.

Agent state holds world objects (a belief, a skill book, affordances) that LangGraph's msgpack encoder cannot
take, so checkpoints are pickled; and because a checkpoint file may come from someone else, reading one only
rebuilds classes from coopgraph, pydantic and the standard containers, never arbitrary callables.
"""

from __future__ import annotations

import io
import pickle
import sqlite3
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

_SAFE_MODULES = ("coopgraph.", "pydantic.", "pydantic_core.", "collections", "datetime", "enum", "decimal",
                 "pathlib", "uuid", "numpy", "typing")
_SAFE_BUILTINS = frozenset({"set", "frozenset", "dict", "list", "tuple", "str", "bytes", "bytearray", "int", "float",
                            "complex", "bool", "range", "slice", "object", "type", "NoneType"})
_SAFE_COPYREG = frozenset({"_reconstructor", "__newobj__", "__newobj_ex__"})


class UnsafeCheckpoint(pickle.UnpicklingError):
    """A checkpoint named a class outside what agent state is made of; it was not loaded."""


class _StateUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        allowed = (module == "builtins" and name in _SAFE_BUILTINS) or (module == "copyreg" and name in _SAFE_COPYREG) \
            or module.startswith(_SAFE_MODULES) or module in ("collections", "datetime", "enum", "numpy")
        if not allowed:
            raise UnsafeCheckpoint(f"checkpoint refers to {module}.{name}, which agent state never contains")
        return super().find_class(module, name)


class StateSerializer(JsonPlusSerializer):
    """LangGraph's serializer with agent state pickled and unpickled through an allow-list."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if obj is None:
            return "null", b""
        return "pickle", pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, payload = data
        if kind == "pickle":
            return _StateUnpickler(io.BytesIO(payload)).load()
        return super().loads_typed(data)


def saver_file(saver: Any) -> str | None:
    """The file a saver writes to (None for one that keeps checkpoints in memory), for traces to name it."""
    connection = getattr(saver, "conn", None)
    if not isinstance(connection, sqlite3.Connection):
        return None
    rows = connection.execute("PRAGMA database_list").fetchall()
    return next((str(Path(row[2]).resolve()) for row in rows if row[1] == "main" and row[2]), None)


def read_checkpoint(path: str | Path, thread_id: str, checkpoint_id: str) -> dict[str, Any]:
    """The channel values one saved checkpoint holds (read-only: replaying never writes into a run's file)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    connection = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, check_same_thread=False)
    try:
        saver = SqliteSaver(connection, serde=StateSerializer())
        found = saver.get_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": "",
                                                  "checkpoint_id": checkpoint_id}})
    finally:
        connection.close()
    if found is None:
        raise KeyError(f"checkpoint {checkpoint_id} of thread {thread_id} is not in {path}")
    return dict(found.checkpoint["channel_values"])


def memory_saver() -> InMemorySaver:
    """Checkpoints kept for the life of the process (the default: replays within a session, nothing on disk)."""
    return InMemorySaver(serde=StateSerializer())


def sqlite_saver(path: str | Path) -> BaseCheckpointSaver[Any]:
    """Checkpoints in a SQLite file (LangGraph's saver), so `coopgraph replay` and `fork` can read them later."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(path), check_same_thread=False)
    return SqliteSaver(connection, serde=StateSerializer())
