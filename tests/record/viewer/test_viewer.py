"""The trace page's data and HTML: timeline, replay frames, decisions, graph path, and nothing fetched."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.record.trace_file import read_events
from coopgraph.record.viewer import build_view, render_page
from coopgraph.record.viewer.replay import action_ids, action_kind

runner = CliRunner()


def test_the_view_follows_the_run(traces: dict[str, Path]) -> None:
    events = read_events(traces["decided"])
    view = build_view(events)
    steps = [e for e in events if e["type"] == "env_step"]
    assert view["meta"]["agents"] == ["alice", "bob"] and set(view["timeline"]) == {"alice", "bob"}
    assert len(view["frames"]) == len(steps) + 1 and len(view["timeline"]["bob"]) == len(steps)
    assert view["layout"]["rooms"] and view["frames"][0]["agents"]["alice"]["pos"]
    last = steps[-1]["agents"]["alice"]["position"]
    assert view["frames"][-1]["agents"]["alice"]["pos"] == last
    assert view["frames"][-1]["subgoals_done"] == view["metrics"]["metrics"]["subgoals_total"]
    # every goal object was carried and put down: the last frame places it where the put action pointed
    puts = [(a["action"], s["step"]) for s in steps for a in s["agents"].values()
            if action_kind(a["action"]) == "put" and a["ok"]]
    assert puts
    furniture = {o["id"]: o["position"] for o in view["layout"]["objects"] if o["kind"] != "item"}
    item, target = action_ids(puts[0][0])
    x, y = view["frames"][-1]["items"][item]
    assert abs(x - furniture[target][0]) < 0.6 and abs(y - furniture[target][1]) < 0.6
    assert len(view["messages"]) == view["metrics"]["metrics"]["communication_steps"]
    assert {p["plan"] for p in view["plans"]["bob"]} and all(p["end"] >= p["start"] for p in view["plans"]["bob"])


def test_decisions_group_llm_calls_nodes_and_plans_by_agent_and_step(traces: dict[str, Path]) -> None:
    view = build_view(read_events(traces["decided"]))
    with_llm = [d for d in view["decisions"] if d["llm_calls"]]
    assert [d["step"] for d in with_llm] == [0, 5, 12] and all(d["agent"] == "alice" for d in with_llm)
    first = with_llm[0]
    assert first["path"] == ["perceive", "choose_action", "start_plan", "step_plan"]
    assert first["prompt_tokens"] == 120 and first["latency_s"] == 0.25
    assert first["llm_calls"][0]["prompt"][1]["content"].startswith("Step 0.")
    assert any(p["reasoning"].startswith("the apple") for p in first["plans"])
    graph = view["graphs"]["alice"]
    assert graph["visits"]["choose_action"] == 3 and graph["edges"]["__start__>perceive"] == 3
    assert 'data-node="choose_action"' in graph["svg"]
    assert 'data-from="step_plan" data-to="choose_action"' in graph["svg"]
    assert graph["mermaid"].startswith("flowchart TD")


def test_the_page_is_self_contained_and_trace_text_cannot_break_out(traces: dict[str, Path]) -> None:
    view = build_view(read_events(traces["decided"]))
    html = render_page(view)
    assert "<script>alert(1)</script>" not in html  # the synthetic prompt carries this text
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", html, re.IGNORECASE)
    assert "@import" not in html and "url(http" not in html
    assert "default-src 'none'" in html  # the browser refuses any fetch the page might try
    data = html.split('<script id="trace-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data)["decisions"][0]["agent"] == "alice"


def test_trace_view_command_writes_the_page(traces: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    result = runner.invoke(app, ["trace", "view", str(traces["pair"]), "-o", str(target), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["html"] == str(target) and info["has_layout"] and info["agents"] == ["alice", "bob"]
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    missing = runner.invoke(app, ["trace", "view", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "no trace file" in missing.output


def test_a_trace_without_layout_or_end_still_renders(tmp_path: Path, traces: dict[str, Path]) -> None:
    lines = traces["pair"].read_text(encoding="utf-8").splitlines()
    cut = []
    for line in lines[: len(lines) // 2]:
        event = json.loads(line)
        event.pop("layout", None)
        cut.append(json.dumps(event))
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join(cut) + '\n{"type": "env_st', encoding="utf-8")  # torn last line
    view = build_view(read_events(partial))
    assert not view["meta"]["complete"] and view["layout"] is None and len(view["frames"]) > 1
    assert "<!DOCTYPE html>" in render_page(view)


def test_the_view_carries_the_runs_process_measures_and_their_marks(traces: dict[str, Path]) -> None:
    from coopgraph.record.process import process_measures

    events = read_events(traces["pair"])
    process = build_view(events)["process"]
    assert process == json.loads(json.dumps(process_measures(events).as_dict()))
    assert set(process["marks"]) == {"alice", "bob"} and process["unit"] == "steps"
    assert set(process["team"]) == set(process["measures"])
