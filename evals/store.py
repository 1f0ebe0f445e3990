"""The result store: one SQLite file per output folder, one row per finished episode run.

Rows are keyed by suite + team + episode + seed + repeat + config hash, so a rerun skips what is done and
redoes the rest. Each row is written in its own transaction in WAL mode by a single writer (the parent
process), so a Ctrl-C or `kill -9` at any moment leaves every earlier row intact and no half rows.

Each row also says which model seed each LLM agent sampled with (`model_seeds`) and whether the run was
`deterministic` (no member sampled); a store written before these existed gains the columns when opened, and its
old rows read None for both: unknown.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

STORE_NAME = "results.sqlite"
SCHEMA_VERSION = 3  # 2: model_seeds and deterministic; 3: study (a user study's participant, session, ratings)

# Flat numeric columns (the same names as the episode metrics), so plain SQL can query them.
METRIC_COLUMNS = (
    "success", "steps", "max_steps", "subgoals_done", "subgoals_total", "travel_distance",
    "travel_distance_per_agent", "communication_steps", "characters_sent", "characters_per_message",
    "invalid_actions", "oracle_bound", "llm_calls", "prompt_tokens", "completion_tokens", "decisions",
    "invalid_answers", "wall_time_s",
)
JSON_COLUMNS = ("members", "llms", "env_options", "metrics", "per_agent", "llm_usage", "versions", "progress",
                "model_seeds", "study")
TEXT_COLUMNS = ("run_id", "suite", "team", "env", "episode", "config_hash", "status", "trace_path", "error",
                "host")
INT_COLUMNS = ("seed", "repeat", "pid")
TIME_COLUMNS = ("started_at", "finished_at")
FLAG_COLUMNS = ("deterministic",)  # true, false, or NULL: unknown (a row from before the column existed)
#: Columns added after the first schema, with their SQL type: an older store gains them when opened.
ADDED_COLUMNS = {"model_seeds": "TEXT", "deterministic": "INTEGER", "study": "TEXT"}
KEY_COLUMNS = ("suite", "team", "episode", "seed", "repeat", "config_hash")

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    {", ".join(f"{c} TEXT" for c in TEXT_COLUMNS)},
    {", ".join(f"{c} INTEGER" for c in INT_COLUMNS)},
    {", ".join(f"{c} REAL" for c in METRIC_COLUMNS)},
    {", ".join(f"{c} TEXT" for c in JSON_COLUMNS)},
    {", ".join(f"{c} REAL" for c in TIME_COLUMNS)},
    {", ".join(f"{c} INTEGER" for c in FLAG_COLUMNS)},
    UNIQUE ({", ".join(KEY_COLUMNS)})
);
CREATE TABLE IF NOT EXISTS suites (
    name TEXT PRIMARY KEY,
    path TEXT,
    text TEXT,
    updated_at REAL
);
"""
ALL_COLUMNS = (*TEXT_COLUMNS, *INT_COLUMNS, *METRIC_COLUMNS, *JSON_COLUMNS, *TIME_COLUMNS, *FLAG_COLUMNS)


SQLITE_HEADER = b"SQLite format 3\x00"


class StoreDamaged(Exception):
    """The result store file exists but cannot be used; it is left exactly as it was found."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(damaged_message(path, reason))


def damaged_message(path: Path, reason: str) -> str:
    """What is wrong with a store and how to recover, in one paragraph."""
    folder = path.parent
    sidecars = [p.name for p in (Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]
    also = f" (with {' and '.join(sidecars)})" if sidecars else ""
    traces = folder / "traces"
    kept = (f"the traces of the runs it recorded are still under {traces}; copy them elsewhere first if you want to "
            "keep them, since a rerun writes each episode's trace anew") if traces.is_dir() else \
        "no traces were found next to it"
    return (f"result store {path} is damaged: {reason}. It was left untouched. To recover, move it aside{also} "
            f"(e.g. mv {path} {path}.damaged) and rerun `coopgraph eval SUITE --out {folder}` to build a new "
            f"store; {kept}.")


def _busy(exc: sqlite3.Error) -> bool:
    """A store another process holds is not a damaged one."""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _check_intact(path: Path) -> None:
    """Refuse a store file that is not a readable SQLite database, before anything could write to it."""
    if not path.is_file():
        raise StoreDamaged(path, "it is not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise StoreDamaged(path, "the file is empty (0 bytes), so whatever it held is gone")
    with path.open("rb") as fh:
        head = fh.read(len(SQLITE_HEADER))
    if head != SQLITE_HEADER:
        kind = "a text file" if head and all(32 <= b < 127 or b in (9, 10, 13) for b in head) else "other data"
        raise StoreDamaged(path, f"it is not an SQLite database ({size} bytes of {kind})")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        raise StoreDamaged(path, f"SQLite cannot open it ({exc})") from None
    try:
        problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        if _busy(exc):
            raise
        raise StoreDamaged(path, f"SQLite cannot read it ({exc})") from None
    finally:
        conn.close()
    if problems != ["ok"]:
        raise StoreDamaged(path, f"SQLite's integrity check fails ({'; '.join(problems[:3])})")
    if tables and "runs" not in tables:
        names = ", ".join(sorted(tables))
        raise StoreDamaged(path, f"it is an SQLite database but not a result store (tables: {names})")


class ResultStore:
    """Reads and writes `DIR/results.sqlite`; safe to reopen after any interruption. An existing file that is
    not a sound store raises StoreDamaged and is never written to."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / STORE_NAME
        if self.path.exists():
            _check_intact(self.path)
        self.conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            with self._transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self.conn.execute(statement)
                self._add_missing_columns()
                self.conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            if _busy(exc):
                raise
            raise StoreDamaged(self.path, f"SQLite cannot use it ({exc})") from None

    def _add_missing_columns(self) -> None:
        """Give a store from an older schema the columns added since (its rows read NULL there: unknown)."""
        have = {r[1] for r in self.conn.execute("PRAGMA table_info(runs)")}
        for column, kind in ADDED_COLUMNS.items():
            if column not in have:
                self.conn.execute(f"ALTER TABLE runs ADD COLUMN {column} {kind}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save_suite(self, name: str, path: str, text: str) -> None:
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO suites(name, path, text, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET path=excluded.path, text=excluded.text, "
                "updated_at=excluded.updated_at",
                (name, path, text, time.time()),
            )

    def suite_texts(self) -> dict[str, str]:
        return {r["name"]: r["text"] for r in self.conn.execute("SELECT name, text FROM suites ORDER BY name")}

    def done_keys(self) -> set[tuple[str, str, str, int, int, str]]:
        """Keys of runs that finished; a rerun skips exactly these."""
        rows = self.conn.execute(f"SELECT {', '.join(KEY_COLUMNS)} FROM runs WHERE status = 'done'")
        return {tuple(r) for r in rows}  # type: ignore[misc]

    def record(self, row: dict[str, Any]) -> None:
        """Insert one finished (or failed) run in its own transaction; a done row is never overwritten."""
        values = {c: _encode(c, row.get(c)) for c in ALL_COLUMNS}
        columns = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        updates = ", ".join(f"{c}=excluded.{c}" for c in values if c not in KEY_COLUMNS)
        with self._transaction() as conn:
            conn.execute(
                f"INSERT INTO runs({columns}) VALUES ({marks}) ON CONFLICT({', '.join(KEY_COLUMNS)}) "
                f"DO UPDATE SET {updates} WHERE runs.status != 'done'",
                list(values.values()),
            )

    def mark_failed(self, key: tuple[str, str, str, int, int, str], error: str) -> bool:
        """Turn the done row of `key` into a failed one (`error`, its figures kept for reading), so the next run
        plays its episode again; whether there was a done row to mark. For an episode found not to measure what
        it ran for after it was stored (its model stopped answering mid-episode)."""
        where = " AND ".join(f"{column} = ?" for column in KEY_COLUMNS)
        with self._transaction() as conn:
            cursor = conn.execute(f"UPDATE runs SET status = 'error', error = ? WHERE status = 'done' AND {where}",
                                  [error, *key])
        return cursor.rowcount > 0

    def mark_done(self, key: tuple[str, str, str, int, int, str], metrics: dict[str, Any]) -> bool:
        """Make the row of `key` a done one with `metrics`, whether marked failed or done; whether there was a row.
        For an episode a run was asked to count after all (`coopgraph eval --count-unanswered`): its figures were
        kept when it was marked failed, so it need not be played again."""
        where = " AND ".join(f"{column} = ?" for column in KEY_COLUMNS)
        with self._transaction() as conn:
            cursor = conn.execute(f"UPDATE runs SET status = 'done', error = NULL, metrics = ? WHERE {where}",
                                  [_encode("metrics", metrics), *key])
        return cursor.rowcount > 0

    def rows(self, *, suite: str | None = None, status: str | None = "done") -> list[dict[str, Any]]:
        query, args = "SELECT * FROM runs WHERE 1=1", []
        if suite is not None:
            query += " AND suite = ?"
            args.append(suite)
        if status is not None:
            query += " AND status = ?"
            args.append(status)
        return [_decode(dict(r)) for r in self.conn.execute(query + " ORDER BY id", args)]

    def counts(self) -> dict[str, int]:
        query = "SELECT status, COUNT(*) AS n FROM runs GROUP BY status"
        return {r["status"]: r["n"] for r in self.conn.execute(query)}


def _encode(column: str, value: Any) -> Any:
    if column in JSON_COLUMNS:
        return None if value is None else json.dumps(value, default=str)
    if column in FLAG_COLUMNS:
        return None if value is None else int(bool(value))
    if isinstance(value, bool):
        return float(value)
    return value


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    for column in JSON_COLUMNS:
        if row.get(column) is not None:
            row[column] = json.loads(row[column])
    for column in FLAG_COLUMNS:
        row[column] = None if row.get(column) is None else bool(row[column])
    return row


def open_store(folder: str | Path) -> ResultStore:
    return ResultStore(folder)


def existing_store(folder: str | Path) -> ResultStore:
    """Open a store that must already exist (for reports), with a clear error otherwise."""
    path = Path(folder) / STORE_NAME
    if not path.is_file():
        raise FileNotFoundError(f"no result store at {path}; run `coopgraph eval SUITE --out {folder}` first")
    return ResultStore(folder)

