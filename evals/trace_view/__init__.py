"""`coopgraph trace view`: one self-contained HTML page per run (inline CSS, JS and data; nothing fetched).

The page shows a per-agent step timeline, the dialogue, a top-down map replay with a scrubber, every
decision's prompt/answer/reasoning/tokens/latency, the agents' graphs with the path taken, and the metrics.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from coopgraph.evals.trace_view.model import build_view

TRACE_FORMAT = "a JSON Lines file of events, one object with a \"type\" per line, as `coopgraph run` and " \
    "`coopgraph eval` write them"


class NotATrace(ValueError):
    """The file given as a trace is not one (binary, not UTF-8, not JSON Lines, or lines that are not events)."""


def load_trace(path: str | Path) -> list[dict[str, Any]]:
    """A trace's events, or NotATrace saying what is wrong and what a trace is; a torn last line (a killed
    run) is skipped, as everywhere else."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NotATrace(f"cannot read trace {path}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise NotATrace(f"{path} is not a trace: byte 0x{raw[exc.start]:02x} on line {line} is not UTF-8 text "
                        f"(a trace is {TRACE_FORMAT})") from None
    lines = [(n, s) for n, s in enumerate(text.splitlines(), 1) if s.strip()]
    events: list[dict[str, Any]] = []
    for index, (number, line) in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not (isinstance(record, dict) and isinstance(record.get("type"), str)):
            if index == len(lines) - 1 and events:
                break  # a torn last line
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise NotATrace(f"{path} is not a trace: line {number} is not an event ({shown!r}); a trace is "
                            f"{TRACE_FORMAT}")
        events.append(record)
    if not events:
        raise NotATrace(f"{path} is not a trace: it holds no events (a trace is {TRACE_FORMAT})")
    return events


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _script_safe_json(data: Any) -> str:
    """JSON that cannot end the <script> element it sits in, whatever the prompts contain."""
    text = json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028") \
        .replace("\u2029", "\\u2029")


def render_page(view: dict[str, Any]) -> str:
    from html import escape

    meta = view.get("meta", {})
    team = " + ".join(meta.get("team") or [])
    title = f"coopgraph trace · {meta.get('env') or ''} {meta.get('episode') or ''} · {team}"
    page = _asset("page.html")
    script = _asset("grid.js") + "\n" + _asset("page.js")  # grid.js is shared with the play page
    for marker, value in (("/*__CSS__*/", _asset("page.css")), ("/*__JS__*/", script),
                          ("__TITLE__", escape(title)), ("__DATA__", _script_safe_json(view))):
        page = page.replace(marker, value, 1)
    return page


def write_view(trace: str | Path, target: str | Path) -> dict[str, Any]:
    """Render `trace` into `target`; returns what the page holds (for `--json`)."""
    trace, target = Path(trace), Path(target)
    view = build_view(load_trace(trace), name=trace.name, trace=str(trace))
    html = render_page(view)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")
    return {"trace": str(trace), "html": str(target), "bytes": len(html.encode("utf-8")),
            "steps": max(0, len(view["frames"]) - 1), "agents": view["meta"]["agents"],
            "decisions": len(view["decisions"]), "messages": len(view["messages"]),
            "has_layout": bool(view.get("layout")), "graphs": sorted(view["graphs"])}


__all__ = ["NotATrace", "build_view", "load_trace", "render_page", "write_view"]
