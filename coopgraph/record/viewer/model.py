"""The data behind the trace page, derived from a trace's events in one pass.

Decisions are grouped per agent and environment step: the nodes an agent's graph ran, the routes it took,
its LLM calls (prompt, answer, tokens, latency), invalid answers and the plan it settled on. Events carry no
step of their own except plans and env steps, so everything between two `env_step` events belongs to the
step the agents were deciding for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coopgraph.record.process import process_measures
from coopgraph.record.viewer.floor_replay import build_floor_frames, is_floorplan
from coopgraph.record.viewer.grid_replay import build_grid_frames, is_grid, soups_served
from coopgraph.record.viewer.replay import action_kind, build_frames

KEEP_LLM = ("node", "attempt", "model", "backend", "prompt", "response", "prompt_tokens", "completion_tokens",
            "latency_s", "cache_hit", "constrained")


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next((e for e in events if e.get("type") == kind), {})


def _decisions(events: list[dict[str, Any]], trace: str | None = None
               ) -> tuple[list[dict[str, Any]], dict[str, list[list[str]]]]:
    """Decisions in order (with the command that replays each, when the run saved checkpoints to disk), and per
    agent the node paths of every graph invocation."""
    step = 0
    invocations: dict[tuple[str, int], dict[str, Any]] = {}
    order: list[tuple[str, int]] = []

    def slot(agent: str, at: int) -> dict[str, Any]:
        key = (agent, at)
        if key not in invocations:
            invocations[key] = {"agent": agent, "step": at, "path": [], "routes": [], "llm_calls": [],
                                "invalid_answers": [], "plans": [], "errors": []}
            order.append(key)
        return invocations[key]

    for event in events:
        kind, agent = event.get("type"), event.get("agent")
        if kind == "env_step":
            step = int(event.get("step", step))
            continue
        if not agent:
            continue
        if kind == "node_start":
            slot(agent, step)["path"].append(event.get("node"))
        elif kind == "route":
            slot(agent, step)["routes"].append({"node": event.get("node"), "branch": event.get("branch")})
        elif kind == "llm_call":
            slot(agent, step)["llm_calls"].append({k: event.get(k) for k in KEEP_LLM})
        elif kind == "llm_error":
            slot(agent, step)["errors"].append({"node": event.get("node"), "error": event.get("error")})
        elif kind == "invalid_answer":
            slot(agent, step)["invalid_answers"].append({"node": event.get("node"), "raw": event.get("raw"),
                                                        "errors": event.get("errors")})
        elif kind == "checkpoint" and event.get("decision") and event.get("file") and trace:
            slot(agent, step)["replay"] = (f"coopgraph replay {trace} --agent {agent} "
                                           f"--decision {event['decision']}")
        elif kind == "plan":
            at = int(event.get("step", step))
            slot(agent, at)["plans"].append({"plan": event.get("plan"), "invalid": bool(event.get("invalid")),
                                             "reasoning": event.get("reasoning") or ""})
    paths: dict[str, list[list[str]]] = {}
    decisions: list[dict[str, Any]] = []
    for key in order:
        item = invocations[key]
        if item["path"]:
            paths.setdefault(item["agent"], []).append(item["path"])
        if item["plans"] or item["llm_calls"] or item["invalid_answers"] or item["errors"]:
            item["id"] = len(decisions)
            item["prompt_tokens"] = sum(c.get("prompt_tokens") or 0 for c in item["llm_calls"])
            item["completion_tokens"] = sum(c.get("completion_tokens") or 0 for c in item["llm_calls"])
            item["latency_s"] = round(sum(c.get("latency_s") or 0 for c in item["llm_calls"]), 4)
            decisions.append(item)
    return decisions, paths


def _plans(events: list[dict[str, Any]], agents: list[str], last_step: int) -> dict[str, list[dict[str, Any]]]:
    """Each agent's high-level plans as [start, end] spans of steps."""
    spans: dict[str, list[dict[str, Any]]] = {a: [] for a in agents}
    open_plan: dict[str, dict[str, Any]] = {}
    for event in events:
        agent = event.get("agent")
        if event.get("type") == "plan" and agent in spans:
            if agent in open_plan:
                open_plan[agent]["end"] = int(event.get("step", 0))
                open_plan[agent]["status"] = "replaced"
            span = {"plan": event.get("plan"), "start": int(event.get("step", 0)), "end": last_step,
                    "status": "running", "invalid": bool(event.get("invalid"))}
            spans[agent].append(span)
            open_plan[agent] = span
        elif event.get("type") == "plan_end" and agent in open_plan:
            span = open_plan.pop(agent)
            span["end"] = max(span["start"], int(event.get("step", span["start"])))
            span["status"] = event.get("status")
    return spans


def _graphs(manifest: dict[str, Any], paths: dict[str, list[list[str]]]) -> dict[str, dict[str, Any]]:
    from coopgraph.record.viewer.graph_svg import END, START, graph_svg

    graphs = {}
    for agent, info in (manifest.get("specs") or {}).items():
        entry: dict[str, Any] = {"spec": info.get("name"), "file": info.get("file"), "svg": None, "mermaid": None}
        visits: dict[str, int] = {}
        taken: dict[str, int] = {}
        for path in paths.get(agent, []):
            for node in path:
                visits[node] = visits.get(node, 0) + 1
            hops = [START, *path, END]
            for a, b in zip(hops, hops[1:], strict=False):
                taken[f"{a}>{b}"] = taken.get(f"{a}>{b}", 0) + 1
        entry["visits"], entry["edges"] = visits, taken
        try:
            from coopgraph.graphs.loader import load_spec
            from coopgraph.graphs.mermaid import to_mermaid

            loaded = load_spec(Path(info["file"]), check=False)
            entry["svg"], entry["mermaid"] = graph_svg(loaded.spec), to_mermaid(loaded)
        except Exception as exc:  # noqa: BLE001 - the spec may have moved since the run; the page says so
            entry["error"] = f"could not load the spec {info.get('file')}: {type(exc).__name__}: {exc}"
        graphs[agent] = entry
    return graphs


def build_view(events: list[dict[str, Any]], name: str = "", trace: str | None = None) -> dict[str, Any]:
    """Everything the page shows, as plain JSON-able data; `trace` (the file's path) goes into replay commands."""
    manifest, start = _first(events, "manifest"), _first(events, "episode_start")
    end, summary = _first(events, "episode_end"), _first(events, "run_summary")
    steps = [e for e in events if e.get("type") == "env_step"]
    agents = list(start.get("agents") or sorted({a for e in steps for a in e.get("agents", {})}))
    last_step = int(steps[-1]["step"]) if steps else 0
    layout = start.get("layout")
    item_table: dict[str, Any]
    served: dict[str, Any] | None = None
    if is_grid(layout):  # a kitchen of cells (Overcooked), not rooms of objects
        frames, item_table = build_grid_frames(layout, agents, steps), {"items": {}, "open": {}}
        served = soups_served(agents, steps, end)
    elif is_floorplan(layout):  # metric rooms with moving targets and containers (TDW-MAT)
        frames, item_table = build_floor_frames(layout or {}, agents, steps)
    else:
        frames, item_table = build_frames(layout, agents, steps)
    timeline: dict[str, list[dict[str, Any]]] = {a: [] for a in agents}
    for event in steps:
        for agent, info in (event.get("agents") or {}).items():
            timeline.setdefault(agent, []).append({
                "step": int(event["step"]), "action": info.get("action"), "kind": action_kind(info.get("action")),
                "ok": bool(info.get("ok", True)), "reason": info.get("reason") or "", "room": info.get("room")})
    decisions, paths = _decisions(events, trace)
    messages = [{k: e.get(k) for k in ("agent", "step", "text", "chars", "truncated")}
                for e in events if e.get("type") == "message"]
    return {
        "name": name,
        "meta": {"env": start.get("env") or manifest.get("env"), "episode": start.get("episode"),
                 "seed": start.get("seed"), "team": start.get("team") or manifest.get("team"), "agents": agents,
                 "max_steps": start.get("max_steps"), "goal": start.get("goal"), "llm": manifest.get("llm"),
                 "versions": manifest.get("versions"), "env_options": manifest.get("env_options"),
                 "complete": bool(end)},
        "metrics": {"success": end.get("success"), "steps": end.get("steps", last_step),
                    "metrics": end.get("metrics") or {}, "per_agent": end.get("per_agent") or {},
                    "llm_usage": summary.get("llm_usage") or {}, "invalid_answers": summary.get("invalid_answers")},
        "layout": start.get("layout"),
        "items": item_table,
        "served": served,
        "frames": frames,
        "timeline": timeline,
        "plans": _plans(events, agents, last_step),
        "messages": messages,
        "decisions": decisions,
        "graphs": _graphs(manifest, paths),
        "process": process_measures(events).as_dict(),
    }
