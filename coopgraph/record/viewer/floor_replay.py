"""Replay frames for worlds drawn as a metric floorplan (TDW-MAT): where each agent stands and faces, what its hands
hold (with a held container's contents), and where every target and container is after each event.

The world's `layout()` in `episode_start` (`kind: floorplan`) gives rooms, doors, the bed and each thing's first
place; `env_step` events give every agent's position, heading and hands. A thing in a hand follows its agent; a
thing that leaves a hand on a successful `[put_in]` goes into the container still held, any other leaves it on
the floor where the agent stands (with whatever is inside it). Only things that ever move are listed per frame.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from coopgraph.record.viewer.replay import action_kind


def is_floorplan(layout: dict[str, Any] | None) -> TypeGuard[dict[str, Any]]:
    return bool(layout) and (layout or {}).get("kind") == "floorplan"


def _place(thing: int, where: dict[int, Any], agents: dict[str, list[float]], depth: int = 0) -> list[float] | None:
    """A thing's point: its own, its holder agent's, or (inside a container) the container's."""
    spot = where.get(thing)
    if isinstance(spot, str):
        return agents.get(spot)
    if isinstance(spot, dict) and depth < 3:
        return _place(spot["in"], where, agents, depth + 1)
    return spot


def build_floor_frames(layout: dict[str, Any], agents: list[str],
                       steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Frames 0..N (frame k is the house after event k) and the table of things (names, kinds) for the page."""
    things = {int(t["id"]): t for t in layout.get("things") or []}
    where: dict[int, Any] = {i: list(t["position"]) for i, t in things.items()}  # point, agent id, or {"in": c}
    contents: dict[int, list[int]] = {}
    starts = {s["agent"]: s for s in layout.get("agent_starts") or []}
    frames: list[dict[str, Any]] = [{
        "step": 0, "things": {}, "delivered": 0,
        "agents": {a: {"pos": list(starts[a]["position"]), "heading": starts[a].get("heading", 0.0), "room": None,
                       "holding": [], "inside": {}} for a in agents if a in starts}}]
    held_before: dict[str, list[int]] = {a: [] for a in agents}
    moved: set[int] = set()
    for event in steps:
        infos = event.get("agents") or {}
        positions = {a: list(info.get("position") or [0.0, 0.0]) for a, info in infos.items()}
        state = {}
        for agent, info in infos.items():
            hands = [int(i) for i in info.get("holding") or []]
            put = action_kind(info.get("action")) == "put_in" and bool(info.get("ok"))
            for thing in held_before.get(agent, []):
                if thing in hands:
                    continue
                container = next((h for h in hands if things.get(h, {}).get("kind") == "container"), None)
                if put and container is not None:
                    where[thing] = {"in": container}
                    contents.setdefault(container, []).append(thing)
                else:
                    where[thing] = list(positions[agent])
                moved.add(thing)
            for thing in hands:
                where[thing] = agent
                moved.add(thing)
            held_before[agent] = hands
            state[agent] = {"pos": positions[agent], "heading": info.get("heading"), "room": info.get("room"),
                            "holding": hands, "inside": {str(h): list(contents.get(h, [])) for h in hands
                                                         if contents.get(h)}}
        spots = {str(t): _place(t, where, positions) for t in sorted(moved)}
        frames.append({"step": int(event["step"]), "agents": state, "things": spots,
                       "delivered": next((info.get("delivered") for info in infos.values()
                                          if info.get("delivered") is not None), None),
                       "subgoals_done": event.get("subgoals_done")})
    table = {"items": {str(i): {"name": t["name"], "kind": t["kind"], "pos": t["position"]}
                       for i, t in things.items()}, "open": {}}
    return frames, table
