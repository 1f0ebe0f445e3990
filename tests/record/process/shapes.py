"""Small hand-built traces in each world's shape, for the process-measure tests."""

from __future__ import annotations

from typing import Any

ROOMS = [{"id": 10, "name": "bedroom"}, {"id": 60, "name": "kitchen"}]
GOAL = "Find and put 1 juice, 1 wine onto the <coffeetable> (111)."


def start(env: str = "cwah", agents: tuple[str, ...] = ("alice", "bob"), **extra: Any) -> list[dict[str, Any]]:
    """The manifest and episode_start of an episode (C-WAH's rooms and goal unless `extra` says otherwise)."""
    fields = {"layout": {"rooms": ROOMS}, "goal": GOAL} if env == "cwah" else {}
    return [{"type": "manifest", "t": 0.0, "env": env},
            {"type": "episode_start", "t": 0.0, "env": env, "agents": list(agents), **fields, **extra}]


def act(action: str | None, ok: bool = True, **fields: Any) -> dict[str, Any]:
    """One agent's part of an env_step."""
    return {"action": action, "ok": ok, "reason": "" if ok else "not reachable", **fields}


def step(number: int, done: int = 0, **agents: dict[str, Any]) -> dict[str, Any]:
    return {"type": "env_step", "t": float(number), "step": number, "agents": agents, "subgoals_done": done}


def plan(agent: str, at: int, text: str) -> dict[str, Any]:
    return {"type": "plan", "t": 0.0, "agent": agent, "step": at, "plan": text}


def plan_end(agent: str, at: int, text: str, status: str = "done") -> dict[str, Any]:
    return {"type": "plan_end", "t": 0.0, "agent": agent, "step": at, "plan": text, "status": status}


def message(agent: str, at: int, text: str = "I: Next I will get <juice> (310).") -> dict[str, Any]:
    return {"type": "message", "t": 0.0, "agent": agent, "step": at, "text": text, "chars": len(text)}


def end(**per_agent: dict[str, Any]) -> dict[str, Any]:
    return {"type": "episode_end", "t": 0.0, "success": True, "steps": 0, "metrics": {}, "per_agent": per_agent}
