"""Run traces: one JSONL event log per episode, with secrets redacted before anything is written.

Every node run, LLM call, environment step and message is one JSON object per line, so a
crashed run still leaves a readable prefix and tools (viewer, diff, OpenTelemetry export) can
stream it. Writers never see an API key: values that look like keys, and any key named in the
environment, are masked.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

_SECRET_NAME = re.compile(
    r"(^|[_-])(api[_-]?key|apikey|secret|password|passwd|authorization|token|access[_-]?token)$", re.IGNORECASE
)
_SECRET_VALUE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9._\-]{8,})")
REDACTED = "***"


def _env_secrets() -> list[str]:
    return [v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8]


def redact(value: Any, secrets: list[str] | None = None) -> Any:
    """Return a copy of value with secret-looking fields and known secret values masked."""
    secrets = _env_secrets() if secrets is None else secrets
    if isinstance(value, dict):
        return {
            k: (REDACTED if isinstance(k, str) and _SECRET_NAME.search(k) and v else redact(v, secrets))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v, secrets) for v in value]
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return _SECRET_VALUE.sub(REDACTED, value)
    return value


@contextmanager
def timed_span(event: Callable[..., Any], kind: str, **fields: Any) -> Iterator[dict[str, Any]]:
    """`<kind>_start`, the block, then `<kind>_end` with the block's latency and what it put in the yielded dict
    (or the error it raised), each written through `event`: one span for the tracer and the tracers that wrap it."""
    event(f"{kind}_start", **fields)
    out: dict[str, Any] = {}
    start = time.perf_counter()
    try:
        yield out
    except BaseException as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        event(f"{kind}_end", **fields, latency_s=round(time.perf_counter() - start, 4), **out)


class Tracer:
    """Appends redacted events to a JSONL file; `Tracer(None)` keeps them in memory only."""

    def __init__(self, path: str | Path | None = None, **context: Any) -> None:
        self.path = Path(path) if path else None
        self.context = context
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._secrets = _env_secrets()
        self.listeners: list[Callable[[dict[str, Any]], None]] = []  # e.g. a live console view
        self._fh = None
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("a", encoding="utf-8")

    def bind(self, **context: Any) -> BoundTracer:
        """A view that adds fixed fields (agent, step...) to every event it writes."""
        return BoundTracer(self, context)

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        record = redact({"type": kind, "t": round(time.time(), 4), **self.context, **fields}, self._secrets)
        with self._lock:
            self.events.append(record)
            if self._fh:
                self._fh.write(json.dumps(record, default=str, ensure_ascii=False) + "\n")
                self._fh.flush()
        for listener in self.listeners:
            listener(record)
        return record

    def span(self, kind: str, **fields: Any) -> AbstractContextManager[dict[str, Any]]:
        """Write `<kind>_start`, run the block, write `<kind>_end` with its latency and outputs."""
        return timed_span(self.event, kind, **fields)

    def close(self) -> None:
        with self._lock:
            if self._fh:
                self._fh.close()
                self._fh = None


class BoundTracer:
    """A Tracer with extra fields merged into every event; cheap to create per agent or step."""

    def __init__(self, parent: Tracer | BoundTracer, context: dict[str, Any]) -> None:
        self.parent = parent
        self.context = context

    def bind(self, **context: Any) -> BoundTracer:
        return BoundTracer(self, context)

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        return self.parent.event(kind, **{**self.context, **fields})

    @contextmanager
    def span(self, kind: str, **fields: Any) -> Iterator[dict[str, Any]]:
        with self.parent.span(kind, **{**self.context, **fields}) as out:
            yield out


TRACE_FORMAT = "a JSON Lines file of events, one object with a \"type\" per line, as `coopgraph run` and " \
    "`coopgraph eval` write them"
_SQLITE = b"SQLite format 3\x00"


class NotATrace(ValueError):
    """The file given as a trace is not one; the message says what it is instead and what a trace is."""


def _binary(path: Path, raw: bytes) -> NotATrace | None:
    """Why a file is binary rather than text (a run's checkpoint database, other bytes), or None."""
    if raw.startswith(_SQLITE):
        return NotATrace(f"{path} is not a trace: it is an SQLite database (a run keeps its checkpoints in "
                         f"NAME.checkpoints.sqlite beside its trace NAME.jsonl, {TRACE_FORMAT})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return NotATrace(f"{path} is not a trace: it is a binary file (byte 0x{raw[exc.start]:02x} on line {line} "
                         f"is not UTF-8 text; a trace is {TRACE_FORMAT})")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return NotATrace(f"{path} is not a trace: it is a binary file (a NUL byte on line {line}; a trace is "
                         f"{TRACE_FORMAT})")
    return None


def _whole_json(text: str) -> str:
    """`: the file is one JSON object ...` when the whole text is one JSON document (not JSON Lines), else ``."""
    try:
        document = json.loads(text)
    except ValueError:
        return ""
    kind = "object" if isinstance(document, dict) else "array" if isinstance(document, list) else "value"
    return f": the file is one JSON {kind}, not one event per line"


def load_trace(path: str | Path) -> list[dict[str, Any]]:
    """A trace's events, or NotATrace saying what the file is instead (missing, empty, binary, JSON but not
    events) and what a trace is; a torn last line (a killed run) is skipped, as everywhere else. `trace view`,
    `replay` and `fork` all read their trace through this."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NotATrace(f"cannot read trace {path}: {exc.strerror}") from None
    binary = _binary(path, raw)
    if binary is not None:
        raise binary
    text = raw.decode("utf-8")
    lines = [(n, s) for n, s in enumerate(text.splitlines(), 1) if s.strip()]
    if not lines:
        raise NotATrace(f"{path} is not a trace: it is empty, it holds no events (a trace is {TRACE_FORMAT})")
    events: list[dict[str, Any]] = []
    for index, (number, line) in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            record, what = None, ""
        else:
            what = ": JSON, but not an object with a \"type\""
        if not (isinstance(record, dict) and isinstance(record.get("type"), str)):
            if index == len(lines) - 1 and events:
                break  # a torn last line
            shown = line if len(line) <= 60 else line[:57] + "..."
            whole = _whole_json(text) if not (events or what) else ""
            raise NotATrace(f"{path} is not a trace: line {number} is not an event ({shown!r}{what}){whole}; a "
                            f"trace is {TRACE_FORMAT}")
        events.append(record)
    return events


def read_events(path: str | Path) -> list[dict[str, Any]]:
    """Load a trace, skipping a torn last line left by a killed process."""
    events = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events
