"""`coopgraph trace view`: one self-contained HTML page per run (inline CSS, JS and data; nothing fetched).

The page shows a per-agent step timeline, the dialogue, a top-down map replay with a scrubber, every
decision's prompt/answer/reasoning/tokens/latency, the agents' graphs with the path taken, and the metrics.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from coopgraph.record.trace_file import TRACE_FORMAT, NotATrace, load_trace
from coopgraph.record.viewer.model import build_view


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
    script = "\n".join(_asset(name) for name in ("grid.js", "house.js", "page.js"))  # maps shared with play
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


__all__ = ["TRACE_FORMAT", "NotATrace", "build_view", "load_trace", "render_page", "write_view"]
