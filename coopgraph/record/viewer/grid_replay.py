"""Replay frames for worlds drawn on a grid of cells (Overcooked): where each cook stands and faces, what it holds,
and the kitchen's changing parts after each step, as the world records them in its `env_step` events.

The world's `layout()` in `episode_start` (`kind: grid`) gives the terrain rows and its labelled places; every
agent's step info carries the same `kitchen` (pots with onions and timers, counters with what lies on them, gates
open or shut), so the first agent's copy is taken. Who served is each agent's own `served` flag on the tick its soup
was delivered (`soups_served`).
"""

from __future__ import annotations

from typing import Any, TypeGuard


def is_grid(layout: dict[str, Any] | None) -> TypeGuard[dict[str, Any]]:
    return bool(layout) and (layout or {}).get("kind") == "grid"


def build_grid_frames(layout: dict[str, Any], agents: list[str],
                      steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames 0..N (frame k is the kitchen after step k); frame 0 puts the cooks on their start cells."""
    starts = layout.get("starts") or []
    frames: list[dict[str, Any]] = [{
        "step": 0, "agents": {a: {"pos": list(starts[i]), "holding": None, "facing": None}
                              for i, a in enumerate(agents) if i < len(starts)},
        "kitchen": None}]
    for event in steps:
        infos = event.get("agents") or {}
        kitchen = next((info.get("kitchen") for info in infos.values() if info.get("kitchen") is not None), None)
        frames.append({
            "step": int(event["step"]),
            "agents": {agent: {"pos": list(info.get("position") or [0, 0]), "holding": info.get("holding"),
                               "facing": info.get("facing")} for agent, info in infos.items()},
            "kitchen": kitchen,
            "score": next((info.get("score") for info in infos.values() if "score" in info), None),
            "subgoals_done": event.get("subgoals_done")})
    return frames


def soups_served(agents: list[str], steps: list[dict[str, Any]], end: dict[str, Any]) -> dict[str, Any]:
    """Who served each soup (`soups`: step and agent, in order) and a count per cook (`by_agent`). The steps' `served`
    flags give both; a trace written before those flags existed gives only the counts, from `episode_end`'s
    `deliveries_by_agent` or per-agent deliveries (`source` says which)."""
    soups = [{"step": int(event["step"]), "agent": agent} for event in steps
             for agent, info in (event.get("agents") or {}).items() if info.get("served")]
    flagged = any("served" in info for event in steps for info in (event.get("agents") or {}).values())
    if flagged:
        counts = {agent: sum(1 for soup in soups if soup["agent"] == agent) for agent in agents}
        return {"soups": soups, "by_agent": counts, "source": "steps"}
    by_agent = (end.get("metrics") or {}).get("deliveries_by_agent")
    if not isinstance(by_agent, dict):
        by_agent = {agent: (end.get("per_agent") or {}).get(agent, {}).get("deliveries") for agent in agents}
    counts = {agent: int(n) for agent, n in by_agent.items() if n is not None}
    return {"soups": [], "by_agent": counts, "source": "episode_end" if counts else None}
