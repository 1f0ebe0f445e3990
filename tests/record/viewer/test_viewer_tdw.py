"""The trace page replays a TDW-MAT episode on its floorplan: rooms, doors, the bed and its goal circle from
`layout()`, and per event the agents (where they stand and face, what their hands and containers hold) and every
target or container that moved; a partner's message stays inert text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import coopgraph
from coopgraph.record.viewer import load_trace, write_view
from coopgraph.record.viewer.model import build_view
from coopgraph.testing import scripted_lm

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
OPTION = re.compile(r"^([A-Z]{1,2})\. (.+)$", re.MULTILINE)


def _reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """Grab whatever can be grabbed (so hands fill), else the last option; messages carry hostile markup."""
    options = OPTION.findall(str(messages[-1].content))
    if not options:
        return f'"{HOSTILE} I found <apple> (1)."'
    pick = next((letter for letter, text in options if text.startswith(("[gograb]", "[putin]"))), options[-1][0])
    return f"Answer: {pick}"


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tdwtrace")
    result = coopgraph.run(env="tdw-mat", episode="train/0", team=["coela", "rhp"], llm=lambda: scripted_lm(_reply),
                           max_steps=700, out=out)
    assert result.trace_path is not None
    return Path(result.trace_path)


def test_the_view_has_the_house_and_every_events_agents_and_moved_things(trace: Path) -> None:
    events = load_trace(trace)
    view = build_view(events)
    layout = view["layout"]
    assert layout["kind"] == "floorplan" and len(layout["rooms"]) >= 4 and layout["doors"]
    assert layout["bed"]["position"] and layout["goal_radius"] == 3.0
    assert len(view["frames"]) == 1 + sum(e.get("type") == "env_step" for e in events)
    first = view["frames"][0]
    assert set(first["agents"]) == {"alice", "bob"} and first["agents"]["alice"]["heading"] == 0.0
    held = [(f, a, i) for f in view["frames"][1:] for a, s in f["agents"].items() for i in s["holding"]]
    assert held, "nobody ever held anything"
    frame, agent, thing = held[0]
    assert frame["things"][str(thing)] == frame["agents"][agent]["pos"]  # a held thing travels with its agent
    assert view["items"]["items"][str(thing)]["name"]
    headings = {f["agents"]["alice"]["heading"] for f in view["frames"][1:] if "alice" in f["agents"]}
    assert len(headings) > 1  # turning shows


def test_the_page_draws_the_floorplan_and_keeps_messages_as_text(trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    info = write_view(trace, out)
    html = out.read_text(encoding="utf-8")
    assert info["has_layout"] and "buildFloor" in html and '"kind":"floorplan"' in html.replace(": ", ":")
    head, data = html.split('<script id="trace-data" type="application/json">', 1)
    data = data.split("</script>", 1)[0]
    assert "<script>alert(1)</script>" not in html and "onerror=alert" not in head
    assert HOSTILE.replace("<", "\\u003c").replace(">", "\\u003e") in data  # kept, as inert JSON text
    assert json.loads(data)["frames"][1]["agents"]
    assert re.findall(r"\.innerHTML\s*=\s*[\w.]+", html) == [".innerHTML = g.svg"]


def test_a_put_in_target_follows_its_container_and_a_drop_leaves_both_where_the_agent_stood() -> None:
    from coopgraph.record.viewer.floor_replay import build_floor_frames

    layout = {"kind": "floorplan", "things": [{"id": 5, "name": "bowl", "kind": "container", "position": [0, 0]},
                                              {"id": 6, "name": "apple", "kind": "target", "position": [1, 0]}],
              "agent_starts": [{"agent": "alice", "position": [0, 1], "heading": 0.0}]}

    def step(n: int, pos: list[float], holding: list[int], action: str) -> dict[str, Any]:
        return {"step": n, "agents": {"alice": {"position": pos, "heading": 15.0, "holding": holding,
                                                "action": action, "ok": True, "delivered": 0}}}

    frames, table = build_floor_frames(layout, ["alice"], [
        step(2, [0, 0], [5], "[grasp] <bowl> (5)"), step(4, [1, 0], [5, 6], "[grasp] <apple> (6)"),
        step(39, [1, 0], [5], "[put_in]"), step(60, [4, 4], [5], "[move_forward]"), step(75, [4, 4], [], "[drop]")])
    assert frames[3]["agents"]["alice"]["inside"] == {"5": [6]} and frames[3]["things"]["6"] == [1, 0]
    assert frames[4]["things"]["6"] == [4, 4] == frames[4]["things"]["5"]  # carried inside the held bowl
    assert frames[5]["things"] == {"5": [4, 4], "6": [4, 4]} and frames[5]["agents"]["alice"]["holding"] == []
    assert table["items"]["6"]["name"] == "apple"
