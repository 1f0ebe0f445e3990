"""Run one recorded decision again: restore the agent as it was just before it, ask (maybe another) model.

A run whose agents saved their steps to a checkpoint file (`coopgraph run` does) names, in its trace, each
agent's thread and the checkpoint of every step. Replaying decision N restores the checkpoint of the step
before it onto a fresh thread, gives the agent the observation it had then, and lets the graph decide again,
so a small and a strong model, or two prompts, can be compared on the very same situation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coopgraph.record.recorded_run import (
    NEEDS_CHECKPOINTS,
    RecordedRun,
    StepCheckpoint,
    TraceError,
    checkpoint_file,
    read_run,
    restore_member,
    step_checkpoints,
)

ReplayError = TraceError  # the name replay's callers know; fork raises the same class


@dataclass
class Replayed:
    """A decision run again, beside what the run did."""

    agent: str
    step: int
    decision: int | None
    llm: str
    prompt: list[dict[str, str]] | None
    answer: str | None
    plan: str | None
    action: str
    original_answer: str | None
    original_plan: str | None
    original_action: str | None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        """True when the replay chose another plan (or, without plans, another action) than the run."""
        if self.plan is not None or self.original_plan is not None:
            return self.plan != self.original_plan
        return self.action != self.original_action


def find_step(run: RecordedRun, agent: str, *, decision: int | None = None,
              step: int | None = None) -> tuple[StepCheckpoint, StepCheckpoint | None]:
    """The checkpoint of the asked step and the one before it (None for the agent's first step)."""
    by_agent = step_checkpoints(run.events)
    if not by_agent:
        graph = ", ".join(run.graph_agents)
        raise TraceError(f"{run.path} records no agent checkpoints (members: {run.members()}); "
                         + (f"{NEEDS_CHECKPOINTS}" if graph else "only graph agents have decisions to replay"))
    if agent not in by_agent:
        raise TraceError(f"no graph agent {agent!r} in this trace; agents with checkpoints: "
                         f"{', '.join(sorted(by_agent))}")
    steps = by_agent[agent]
    if decision is not None:
        chosen = [s for s in steps if s.decision == decision]
        if not chosen:
            last = max((s.decision or 0 for s in steps), default=0)
            raise TraceError(f"{agent} made decisions 1 to {last} in this run; there is no decision {decision}")
    else:
        chosen = [s for s in steps if s.step == step]
        if not chosen:
            raise TraceError(f"{agent} took no step {step}; its steps run from {steps[0].step} to {steps[-1].step}")
    target = chosen[0]
    before = next((s for s in reversed(steps) if s.call < target.call), None)
    checkpoint_file(target)
    return target, before


def _originals(events: list[dict[str, Any]], target: StepCheckpoint,
               before: StepCheckpoint | None) -> tuple[str | None, str | None, str | None]:
    """The answer, plan and action the run recorded for that step of that agent."""
    answer = plan = action = None
    inside = before is None
    for event in events:
        if event.get("agent") == target.agent and event.get("type") == "checkpoint":
            if before is not None and event.get("checkpoint_id") == before.checkpoint_id:
                inside = True
                continue
            if event.get("checkpoint_id") == target.checkpoint_id:
                inside = False
        if inside and event.get("agent") == target.agent:
            if event.get("type") == "llm_call":
                answer = event.get("response")
            elif event.get("type") == "plan":
                plan = event.get("plan")
        if event.get("type") == "env_step" and event.get("step") == target.step + 1:
            action = (event.get("agents") or {}).get(target.agent, {}).get("action")
    return answer, plan, action


def replay(trace: str | Path, agent: str, *, decision: int | None = None, step: int | None = None,
           llm: str | None = None, spec: str | None = None, lm: Any = None) -> Replayed:
    """Restore `agent` before its `decision`-th choice (or its step `step`) and let it decide again, with the
    run's LLM setting, another one (`llm`), or a ready LM object (`lm`, e.g. a scripted model in tests), and the
    model seed the run recorded for it."""
    from coopgraph.llm.factory import make_lm
    from coopgraph.record.checkpoints import read_checkpoint
    from coopgraph.record.trace_file import Tracer
    from coopgraph.runtime.graph_agent import GraphAgent

    if (decision is None) == (step is None):
        raise TraceError("name one decision (--decision N) or one step (--step S)")
    run = read_run(trace)
    events = run.events
    target, before = find_step(run, agent, decision=decision, step=step)
    index = run.agents.index(agent)
    spec_ref = spec or run.start["team"][index]
    setting = "given" if lm is not None else llm or run.llm_setting(agent) or "local"
    env = run.make_world()
    env.reset(seed=run.seed)
    info = env.agent_info(agent)
    env.close()
    now = read_checkpoint(checkpoint_file(target), target.thread_id, target.checkpoint_id)
    tracer = Tracer(None)
    member = GraphAgent(spec_ref, lm=lm if lm is not None else make_lm(setting))
    member.model_seed = run.model_seeds.get(agent)  # the decision is asked again with the seed it had
    member.set_tracer(tracer.bind(agent=agent))
    member.reset(agent, info, run.seed + index)
    if before is not None:
        restore_member(member, before, step_checkpoints(events)[agent])
    action = member.act(now["observation"])
    calls = [e for e in tracer.events if e["type"] == "llm_call"]
    plans = [e for e in tracer.events if e["type"] == "plan"]
    original_answer, original_plan, original_action = _originals(events, target, before)
    return Replayed(agent=agent, step=target.step, decision=target.decision, llm=setting,
                    prompt=calls[-1]["prompt"] if calls else None, answer=calls[-1].get("response") if calls else None,
                    plan=plans[-1]["plan"] if plans else None, action=action.text,
                    original_answer=original_answer, original_plan=original_plan, original_action=original_action,
                    events=tracer.events)
