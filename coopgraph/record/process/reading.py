"""A trace's events as the process measures read them: each agent's acts per world step, with what it was heading
for, and the messages, plans, model calls and end-of-episode counts around them.

Only world-neutral fields are read: an act's text (`[kind] <name> (id) ...`), `ok`, `position`, `holding`,
`ready`, the steps' numbers (a step covers the world time since the previous one: a frame count in TDW-MAT), and
the `<name> (id)` labels of plans. Rooms and the goal's shared destinations are not objects two agents can compete
for, so they are never targets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coopgraph.envs.protocol import SEND_MESSAGE, action_kind, parse_labels

#: The world's unit of time, by environment (a step elsewhere).
TIME_UNITS = {"tdw-mat": "frames", "overcooked": "ticks", "collab-capture": "turns", "collab-escape": "turns"}


@dataclass
class Act:
    """One agent's part of one world step."""

    agent: str
    step: int
    span: int  # world time the step covers (frames in TDW-MAT, else 1)
    action: str | None
    kind: str | None
    ok: bool
    reason: str
    position: tuple[float, ...] | None
    held: list[Any]  # what it holds after the step: ids, or a name (Overcooked)
    ready: bool | None  # False while a long action is still running (TDW-MAT)
    target: int | None  # the object it is heading for: its plan's, else its act's


@dataclass
class Episode:
    """What the measures need from one trace."""

    env: str
    unit: str
    agents: list[str]
    steps: list[dict[str, Act]] = field(default_factory=list)
    progress: list[float | None] = field(default_factory=list)  # each step's team `subgoals_done`, when given
    messages: list[dict[str, Any]] = field(default_factory=list)  # each with `index`: its place among events
    plans: list[dict[str, Any]] = field(default_factory=list)  # plan and plan_end events, with `index`
    model_wait_s: dict[str, float] = field(default_factory=dict)
    model_calls: int = 0
    per_agent: dict[str, dict[str, Any]] = field(default_factory=dict)
    labelled: bool = False  # some act or plan names a thing by `<name> (id)`: targets can be followed

    @property
    def time(self) -> int:
        """The episode's length in the world's unit."""
        return sum(next(iter(acts.values())).span for acts in self.steps if acts)


def _position(value: Any) -> tuple[float, ...] | None:
    if isinstance(value, list | tuple) and value and all(isinstance(v, int | float) for v in value):
        return tuple(float(v) for v in value)
    return None


def _held(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _not_targets(start: dict[str, Any]) -> set[int]:
    """Ids that are places or shared destinations: the layout's rooms and every label in the goal."""
    layout = start.get("layout") or {}
    rooms = layout.get("rooms") if isinstance(layout, dict) else None
    ids = {int(r["id"]) for r in rooms or [] if isinstance(r, dict) and isinstance(r.get("id"), int)}
    ids |= {object_id for _, object_id in parse_labels(str(start.get("goal") or ""))}
    return ids


def first_target(text: str | None, excluded: set[int]) -> int | None:
    """The object a plan or act is about: its first `<name> (id)` label that is not a room or a destination."""
    if not text or action_kind(text) == SEND_MESSAGE:
        return None
    for name, object_id in parse_labels(text):
        if name != "room" and object_id not in excluded:
            return object_id
    return None


def read_episode(events: list[dict[str, Any]]) -> Episode:
    """One pass over the events: acts per step (with targets), messages, plans, model waits, per-agent counts."""
    start = next((e for e in events if e.get("type") == "episode_start"), {})
    manifest = next((e for e in events if e.get("type") == "manifest"), {})
    env = str(start.get("env") or manifest.get("env") or "")
    steps_seen = [e for e in events if e.get("type") == "env_step"]
    agents = [str(a) for a in start.get("agents") or []] or sorted({a for e in steps_seen for a in e.get("agents", {})})
    episode = Episode(env=env, unit=TIME_UNITS.get(env, "steps"), agents=agents)
    excluded = _not_targets(start)
    intent: dict[str, int | None] = {}
    last_step = 0
    for index, event in enumerate(events):
        kind, agent = event.get("type"), str(event.get("agent") or "")
        if kind == "plan":
            intent[agent] = first_target(str(event.get("plan") or ""), excluded)
            episode.labelled |= bool(parse_labels(str(event.get("plan") or "")))
            episode.plans.append({**event, "index": index})
        elif kind == "plan_end":
            intent.pop(agent, None)
            episode.plans.append({**event, "index": index})
        elif kind == "message":
            episode.messages.append({**event, "index": index})
        elif kind == "llm_call":
            episode.model_calls += 1
            episode.model_wait_s[agent] = episode.model_wait_s.get(agent, 0.0) + float(event.get("latency_s") or 0)
        elif kind == "episode_end":
            episode.per_agent = {str(a): dict(v) for a, v in (event.get("per_agent") or {}).items()
                                 if isinstance(v, dict)}
        elif kind == "env_step":
            step = int(event.get("step", last_step + 1))
            span, last_step = max(step - last_step, 1), step
            acts = {}
            for name, info in (event.get("agents") or {}).items():
                action = info.get("action")
                target = intent.get(name)
                if target is None:
                    target = first_target(action, excluded)
                episode.labelled |= bool(parse_labels(action or ""))
                acts[name] = Act(agent=name, step=step, span=span, action=action, kind=action_kind(action),
                                 ok=bool(info.get("ok", True)), reason=str(info.get("reason") or ""),
                                 position=_position(info.get("position")), held=_held(info.get("holding")),
                                 ready=info.get("ready"), target=target)
            episode.steps.append(acts)
            done = event.get("subgoals_done")
            episode.progress.append(float(done) if isinstance(done, int | float) else None)
    return episode
