"""The trace page replays an Overcooked episode on its grid: the kitchen from `layout()`, and per step the cooks
(where they stand and face, what they hold), the pots with their onions and timers, counters and gates."""

from __future__ import annotations

import json
import re
from pathlib import Path

import coopgraph
from coopgraph.record.viewer import load_trace, write_view
from coopgraph.record.viewer.model import build_view
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import kitchen_policy

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"


def _trace(tmp_path: Path, layout: str = "no_counter_door", ticks: int = 30) -> Path:
    lm = scripted_lm(lambda messages, kwargs: kitchen_policy(messages, kwargs).replace(
        "Explanation: ", f"Explanation: {HOSTILE} "))
    result = coopgraph.run(env="overcooked", episode=layout, team=["llmco", "greedy"], llm=lambda: lm,
                           max_steps=ticks, out=tmp_path)
    assert result.trace_path is not None
    return Path(result.trace_path)


def test_the_view_has_the_kitchen_and_every_steps_cooks_pots_and_gates(tmp_path: Path) -> None:
    view = build_view(load_trace(_trace(tmp_path)))
    assert view["layout"]["kind"] == "grid" and view["layout"]["terrain"][0] == "XWPWX"
    assert view["layout"]["labels"]["g0"] == [1, 3] and view["layout"]["labels"]["c0"] == [2, 0]
    assert len(view["frames"]) == 31
    first, later = view["frames"][0], view["frames"][30]
    assert first["agents"]["alice"]["pos"] == [1, 2]
    assert set(later["agents"]) == {"alice", "bob"} and later["agents"]["bob"]["facing"] in {"north", "south",
                                                                                             "east", "west"}
    assert [p[:2] for p in later["kitchen"]["pots"]] == [[2, 0]] and len(later["kitchen"]["gates"]) == 2
    assert any(f["kitchen"] and any(p[2] > 0 for p in f["kitchen"]["pots"]) for f in view["frames"][1:])
    assert later["score"] is not None


def test_the_page_draws_the_grid_and_keeps_trace_text_as_text(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    info = write_view(_trace(tmp_path), out)
    html = out.read_text(encoding="utf-8")
    assert info["has_layout"] and "buildGrid" in html and 'kind":"grid"' in html
    assert "<script>alert(1)</script>" not in html and "onerror=alert" not in html.replace("\\u003c", "<").split(
        '<script id="trace-data"', 1)[0]
    data = html.split('<script id="trace-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert HOSTILE.replace("<", "\\u003c").replace(">", "\\u003e") in data  # kept, as inert JSON text
    view = json.loads(data)
    assert view["layout"]["terrain"] and view["frames"][1]["kitchen"]
    # the one innerHTML of the page sets the spec's own generated SVG; the grid is built with textContent only
    assert re.findall(r"\.innerHTML\s*=\s*[\w.]+", html) == [".innerHTML = g.svg"]
