"""Map replay frames from a trace: where every agent stood and where moved objects were after each step.

The trace's `episode_start.layout` gives rooms, furniture and each item's first place; `env_step` events
give agent positions and held items, and successful `put`/`open`/`close` actions tell where items went and
which containers stand open. Only objects that ever change are repeated per frame, so pages stay small.
"""

from __future__ import annotations

import math
import re
from typing import Any

_KIND = re.compile(r"^\s*\[([a-z_]+)\]")
_ID = re.compile(r"\((\d+)\)")
Point = list[float]


def action_kind(action: str | None) -> str:
    match = _KIND.match(action or "")
    return match.group(1) if match else "none"


def action_ids(action: str | None) -> list[int]:
    return [int(x) for x in _ID.findall(action or "")] if action_kind(action) != "send_message" else []


class _Places:
    """Spreads items lying on one piece of furniture around it, so they do not hide each other."""

    def __init__(self, furniture: dict[int, dict[str, Any]]) -> None:
        self.furniture = furniture
        self.count: dict[int, int] = {}

    def next_to(self, holder: int) -> Point:
        base = self.furniture.get(holder, {}).get("position") or [0.0, 0.0]
        index = self.count.get(holder, 0)
        self.count[holder] = index + 1
        angle, radius = index * 2.4, 0.18 + 0.05 * (index // 6)
        return [round(base[0] + radius * math.cos(angle), 3), round(base[1] + radius * math.sin(angle), 3)]


def initial_items(layout: dict[str, Any]) -> tuple[dict[int, dict[str, Any]], _Places]:
    furniture = {o["id"]: o for o in layout.get("objects", []) if o.get("kind") != "item"}
    places = _Places(furniture)
    items = {}
    for obj in layout.get("objects", []):
        if obj.get("kind") != "item":
            continue
        holder = obj.get("on") if obj.get("on") is not None else obj.get("inside")
        items[obj["id"]] = {"name": obj["name"], "dummy": bool(obj.get("dummy")), "holder": holder,
                            "inside": obj.get("inside") is not None, "pos": places.next_to(holder)}
    return items, places


def build_frames(layout: dict[str, Any] | None, agents: list[str],
                 steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Frames 0..N (frame k is the state after step k) and the static item table for the page."""
    layout = layout or {}
    items, places = initial_items(layout)
    starts = layout.get("agent_starts") or []
    frame0_agents = {a: {"pos": list(starts[i]["position"]), "room": None, "holding": []}
                     for i, a in enumerate(agents) if i < len(starts)}
    open_state = {o["id"]: bool(o.get("is_open")) for o in layout.get("objects", []) if o.get("kind") == "container"}
    moved: dict[int, Any] = {}  # item id → [x, y] or the holder agent's id
    opened: dict[int, bool] = {}
    frames = [{"step": 0, "agents": frame0_agents, "items": {}, "open": {}}]
    held_before: dict[str, list[int]] = {a: [] for a in agents}
    for event in steps:
        agent_state = {}
        for agent, info in (event.get("agents") or {}).items():
            holding = [int(i) for i in info.get("holding") or []]
            action = info.get("action")
            kind, ok = action_kind(action), bool(info.get("ok"))
            ids = action_ids(action)
            for item in holding:
                moved[item] = agent
            for item in held_before.get(agent, []):
                if item not in holding:  # put down this step: onto / into the action's target
                    target = ids[-1] if kind == "put" and ok and len(ids) >= 2 else None
                    moved[item] = places.next_to(target) if target is not None else list(info.get("position") or [0, 0])
            if kind in ("open", "close") and ok and ids:
                opened[ids[0]] = kind == "open"
            held_before[agent] = holding
            agent_state[agent] = {"pos": list(info.get("position") or [0, 0]), "room": info.get("room"),
                                  "holding": holding}
        frames.append({"step": int(event["step"]), "agents": agent_state, "items": dict(moved), "open": dict(opened),
                       "subgoals_done": event.get("subgoals_done")})
    table = {"items": {str(k): v for k, v in items.items()}, "open": {str(k): v for k, v in open_state.items()}}
    return frames, table
