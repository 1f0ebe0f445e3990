"""One played episode: the team with a person in it, run by the ordinary episode runner into an ordinary trace.

The seat hears only what the person's agent may know: partners' messages as they are sent, that a partner chose a
plan (its text only with `show_plans`, since a plan names things the agent may not have seen), and the world's
clock. Everything else stays in the trace for after the episode.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coopgraph.play.member import HumanMember
from coopgraph.play.seat import Seat, SeatLeft
from coopgraph.record.trace_file import Tracer, read_events
from coopgraph.runtime.abandoned import PlayAbandoned
from coopgraph.runtime.teams import HUMAN

if TYPE_CHECKING:
    from pettingzoo import ParallelEnv


class PlayError(ValueError):
    """A play request that cannot run (no person in the team, or more than one)."""


def trace_file(out: Path, env: str, episode: str, team: list[str]) -> Path:
    """A new trace path for a played episode (never an existing file)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = f"play-{env}-{episode.replace('/', '_')}-{'+'.join(Path(t).stem for t in team)}-{stamp}"
    path, n = out / f"{base}.jsonl", 1
    while path.exists():
        n += 1
        path = out / f"{base}-{n}.jsonl"
    return path


def mark_abandoned(trace: Path) -> int | None:
    """Append an `abandoned` event (with the last step the world reached) to a trace a person left."""
    steps = [int(e["step"]) for e in read_events(trace) if e.get("type") == "env_step"] if trace.exists() else []
    tracer = Tracer(trace)
    try:
        tracer.event("abandoned", step=steps[-1] if steps else 0)
    finally:
        tracer.close()
    return steps[-1] if steps else 0


def human_agent(team: list[str], agents: list[str]) -> str:
    """The agent the one `human` in `team` plays; raises unless exactly one member is `human`."""
    seats = [agent for agent, name in zip(agents, team, strict=False) if name == HUMAN]
    if len(seats) != 1:
        raise PlayError(f"the team must name exactly one {HUMAN!r} member (got {len(seats)}: {','.join(team)}); "
                        "e.g. --team human,mhp")
    return seats[0]


def visible_event(record: dict[str, Any], agent: str, show_plans: bool) -> dict[str, Any] | None:
    """What of a trace event the person playing `agent` may see, or None."""
    kind, who = record.get("type"), record.get("agent")
    if kind == "message" and who != agent:
        return {"type": "message", "agent": who, "step": record.get("step"), "text": record.get("text")}
    if kind == "plan" and who != agent:
        return {"type": "plan", "agent": who, "step": record.get("step"),
                "plan": record.get("plan") if show_plans else None}
    if kind == "env_step":
        return {"type": "step", "step": record.get("step")}
    return None


def play_episode(env: str, episode: str, team: list[str], llm: Any, seat: Seat, out: Path, *,
                 env_options: dict[str, Any] | None = None, max_steps: int | None = None, seed: int = 0,
                 step_limit_s: float | None = None, show_plans: bool = False, trace_name: str | None = None,
                 world: ParallelEnv | None = None) -> dict[str, Any]:
    """Run one episode with the person at `seat` as the team's `human`; returns the run's result as its JSON payload
    (`RunResult.payload`), which the front ends extend with `human_agent` and the ratings.
    `llm` is what `run_configured` takes (a setting, a factory, or one per member).
    The world is built once (or `world` is the one the caller built from these arguments): it names the human's
    agent and is the one the episode is played in.
    When the person leaves (the seat raises, or Ctrl-C) the trace is marked abandoned and `PlayAbandoned` raised."""
    from coopgraph import envs
    from coopgraph.runtime.launch import run_configured

    if world is None:
        world = envs.make(env, episode=episode, num_agents=len(team), **(env_options or {}))
    try:
        agent = human_agent(team, list(world.possible_agents))
    except BaseException:
        world.close()
        raise

    def forward(record: dict[str, Any]) -> None:
        seen = visible_event(record, agent, show_plans)
        if seen is not None:
            seat.notice(seen)

    trace = out / trace_name if trace_name else trace_file(out, env, episode, team)
    try:
        result = run_configured(env, env_options or {}, episode, team, llm, max_steps, out, seed=seed,
                                listeners=[forward], trace_name=trace.name, keep_checkpoints=True,
                                seat_human=lambda: HumanMember(seat, step_limit_s), world=world).payload()
    except (KeyboardInterrupt, SeatLeft):
        raise PlayAbandoned(trace, mark_abandoned(trace)) from None
    result["human_agent"] = agent
    seat.finish(result)
    return result
