"""Replay frames for worlds drawn on a grid of cells (Overcooked): where each cook stands and faces, what it holds,
and the kitchen's changing parts after each step, as the world records them in its `env_step` events.

The world's `layout()` in `episode_start` (`kind: grid`) gives the terrain rows and its labelled places; every
agent's step info carries the same `kitchen` (pots with onions and timers, counters with what lies on them, gates
open or shut), so the first agent's copy is taken.
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
