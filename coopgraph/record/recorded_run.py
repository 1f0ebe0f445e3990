"""A recorded run read back from its trace: world, team, LLM settings and each graph agent's step checkpoints.

`coopgraph replay` (one decision again) and `coopgraph fork` (the rest of the episode again) both start from
what a run recorded; this is the one place that reads it, finds an agent's checkpoints and puts a saved
checkpoint back onto a fresh agent, so the two commands cannot disagree about what a trace holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coopgraph.record.trace_file import TRACE_FORMAT, NotATrace, load_trace

NEEDS_CHECKPOINTS = "it needs a run made with `coopgraph run`, which keeps checkpoints beside the trace"


class TraceError(ValueError):
    """A recorded run cannot be used as asked; the message says why and what exists."""


@dataclass(frozen=True)
class StepCheckpoint:
    """One agent step as its trace records it."""

    agent: str
    step: int
    call: int  # the agent's graph invocations so far, this one included
    decision: int | None  # the planner's Nth choice, when it chose in this step
    thread_id: str
    checkpoint_id: str
    file: str | None


def step_checkpoints(events: list[dict[str, Any]]) -> dict[str, list[StepCheckpoint]]:
    """Each agent's recorded steps, in order."""
    steps: dict[str, list[StepCheckpoint]] = {}
    for event in events:
        if event.get("type") == "checkpoint" and event.get("checkpoint_id"):
            steps.setdefault(event["agent"], []).append(StepCheckpoint(
                event["agent"], int(event["step"]), int(event["call"]), event.get("decision"), event["thread_id"],
                event["checkpoint_id"], event.get("file")))
    return steps


@dataclass
class RecordedRun:
    """What one episode trace says about the run that wrote it."""

    path: Path
    events: list[dict[str, Any]]
    manifest: dict[str, Any]
    start: dict[str, Any]

    @property
    def agents(self) -> list[str]:
        return list(self.start["agents"])

    @property
    def team(self) -> list[str]:
        """The members as the run named them (a spec path stays a path), in agent order."""
        named = self.manifest.get("team")
        return list(named) if isinstance(named, list) and len(named) == len(self.agents) else list(self.start["team"])

    @property
    def seed(self) -> int:
        return int(self.start.get("seed") or 0)

    @property
    def repeat(self) -> int:
        """The run's repeat index within its suite (0 for a single run, or a trace from before it was recorded)."""
        return int(self.manifest.get("repeat") or 0)

    @property
    def model_seeds(self) -> dict[str, int]:
        """The model seed each graph agent sampled with, by agent. A trace from before model seeds were recorded
        asked with its LLM setting's seed (0), which its manifest keeps per agent; agents with neither are left
        out."""
        recorded = self.manifest.get("model_seeds")
        if isinstance(recorded, dict):
            return {a: int(s) for a, s in recorded.items() if a in self.agents and isinstance(s, int)}
        llm = self.manifest.get("llm") or {}
        settings = {agent: llm.get(agent) for agent in self.agents}
        return {agent: s["seed"] for agent, s in settings.items() if isinstance(s, dict) and isinstance(s.get("seed"),
                                                                                                       int)}

    @property
    def env_options(self) -> dict[str, Any]:
        return dict(self.start.get("options") or self.manifest.get("env_options") or {})

    @property
    def graph_agents(self) -> list[str]:
        """Agents played by graph specs (the manifest names their spec; baselines have none)."""
        specs = self.manifest.get("specs") or {}
        return [agent for agent in self.agents if agent in specs]

    def members(self) -> str:
        """`alice (mhp), bob (coela)`: for messages that name what exists."""
        return ", ".join(f"{agent} ({member})" for agent, member in zip(self.agents, self.team, strict=True))

    def checkpoints(self) -> dict[str, list[StepCheckpoint]]:
        return step_checkpoints(self.events)

    def env_steps(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "env_step"]

    def llm_setting(self, agent: str) -> str | None:
        """The LLM setting the run gave `agent` (`local`, `openai:MODEL`...), or None when it was not a setting
        (a test's scripted model) or not recorded."""
        recorded = self.manifest.get("llm") or {}
        mine = recorded.get(agent) if isinstance(recorded.get(agent), dict) else recorded
        setting = mine.get("setting") if isinstance(mine, dict) else None
        return str(setting) if setting else None

    def make_world(self) -> Any:
        """A fresh copy of the run's world (not reset)."""
        from coopgraph import envs

        return envs.make(self.start["env"], episode=self.start["episode"], num_agents=len(self.agents),
                         **self.env_options)


def read_run(trace: str | Path) -> RecordedRun:
    """Read an episode trace; raises TraceError when the file is not one."""
    path = Path(trace)
    if not path.is_file():
        raise TraceError(f"{path}: no such trace file")
    try:
        events = load_trace(path)
    except NotATrace as exc:
        raise TraceError(str(exc)) from None
    start = next((e for e in events if e.get("type") == "episode_start"), None)
    if start is None:
        kinds = ", ".join(dict.fromkeys(str(e["type"]) for e in events))
        raise TraceError(f"{path} is not a coopgraph episode trace: its events ({kinds}) have no episode_start "
                         f"(a trace of an episode is {TRACE_FORMAT}, starting with its manifest and episode_start)")
    manifest = next((e for e in events if e.get("type") == "manifest"), {})
    return RecordedRun(path, events, manifest, start)


def checkpoint_before(steps: list[StepCheckpoint], step: int) -> StepCheckpoint | None:
    """The agent's last checkpoint taken before the world's clock read `step` (None: it had not acted yet)."""
    return next((s for s in reversed(steps) if s.step < step), None)


def checkpoint_file(checkpoint: StepCheckpoint) -> str:
    """The checkpoint's file, or a TraceError saying why it cannot be read."""
    if checkpoint.file is None:
        raise TraceError(f"this run kept its checkpoints in memory, so {checkpoint.agent}'s steps cannot be restored; "
                         f"{NEEDS_CHECKPOINTS}")
    if not Path(checkpoint.file).exists():
        raise TraceError(f"the run's checkpoint file {checkpoint.file} is gone")
    return checkpoint.file


def restore_member(member: Any, checkpoint: StepCheckpoint, steps: list[StepCheckpoint]) -> None:
    """Put a reset GraphAgent where `checkpoint` left it: its next `act` is the step after that one, on a fresh
    thread, with its step and decision counts as the run had them."""
    from coopgraph.record.checkpoints import read_checkpoint

    values = read_checkpoint(checkpoint_file(checkpoint), checkpoint.thread_id, checkpoint.checkpoint_id)
    decisions = max((s.decision or 0 for s in steps if s.call <= checkpoint.call), default=0)
    member.restore(values, steps=checkpoint.call, decisions=decisions)
