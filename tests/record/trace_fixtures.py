"""Traces for viewer, diff and export tests: a real baseline run plus synthetic graph-agent events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coopgraph.runtime.launch import run_configured

SPEC = Path(__file__).parent / "fixtures" / "loop_agent.yaml"


def baseline_trace(folder: Path, team: list[str] | None = None, episode: str = "test/0", name: str = "run.jsonl",
                   max_steps: int | None = None) -> Path:
    """A real `mhp,mhp` (or given team) run, no LLM."""
    result = run_configured("cwah", {}, episode, team or ["mhp", "mhp"], "local", max_steps, folder, trace_name=name)
    return Path(result.trace_path)


def _decision_events(agent: str, step: int, index: int, t: float) -> list[dict[str, Any]]:
    prompt = [{"role": "system", "content": "You are Alice, a helpful household agent."},
              {"role": "user", "content": f"Step {step}. Goal: put the apple on the table.\nActions:\nA. [goexplore] "
                                          f"<kitchen> (60)\nB. [gograb] <apple> (305)\n<script>alert(1)</script>"}]
    base = {"agent": agent, "t": t}
    return [
        {**base, "type": "node_start", "node": "perceive", "use": "perception.perceive"},
        {**base, "type": "node_end", "node": "perceive", "use": "perception.perceive", "latency_s": 0.001},
        {**base, "type": "route", "node": "perceive", "router": "execution.needs_plan", "branch": "plan"},
        {**base, "type": "node_start", "node": "choose_action", "use": "planning.choose_action"},
        {**base, "type": "llm_call", "node": "choose_action", "attempt": 0, "model": "scripted", "backend": "fake",
         "prompt": prompt, "response": f"Reasoning: the apple is needed (call {index}).\nAnswer: B",
         "prompt_tokens": 120 + index, "completion_tokens": 9, "latency_s": 0.25, "cache_hit": False,
         "constrained": True},
        {**base, "type": "node_end", "node": "choose_action", "use": "planning.choose_action", "latency_s": 0.26},
        {**base, "type": "node_start", "node": "start_plan", "use": "execution.start_plan"},
        {**base, "type": "plan", "step": step, "plan": "[gograb] <apple> (305)", "invalid": False,
         "reasoning": f"the apple is needed (call {index})"},
        {**base, "type": "node_end", "node": "start_plan", "use": "execution.start_plan", "latency_s": 0.001},
        {**base, "type": "node_start", "node": "step_plan", "use": "execution.step_plan"},
        {**base, "type": "node_end", "node": "step_plan", "use": "execution.step_plan", "latency_s": 0.001},
        {**base, "type": "route", "node": "step_plan", "router": "execution.after_step", "branch": "act"},
    ]


def with_llm_decisions(trace: Path, steps: tuple[int, ...] = (0, 5, 12), agent: str = "alice") -> Path:
    """Rewrite `trace` so `agent` looks like a graph agent: manifest spec, node runs, LLM calls and plans."""
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()]
    out: list[dict[str, Any]] = []
    current, pending = 0, list(steps)
    for event in events:
        if event["type"] == "manifest":
            event["specs"] = {agent: {"name": "loop_agent", "file": str(SPEC), "sha256": "test"}}
            event["llm"] = {"model": "scripted", "backend": "fake"}
        out.append(event)
        if event["type"] in ("episode_start", "env_step"):  # agents decide for the step after this one
            current = event.get("step", 0)
            while pending and pending[0] <= current:
                out += _decision_events(agent, pending[0], len(steps) - len(pending), float(event["t"]) + 0.3)
                pending.pop(0)
        if event["type"] == "run_summary":
            event["llm_usage"] = {agent: {"llm_calls": len(steps), "prompt_tokens": 363, "completion_tokens": 27,
                                          "cache_hits": 0, "llm_seconds": 0.75, "llm_errors": 0}}
    trace.write_text("".join(json.dumps(e) + "\n" for e in out), encoding="utf-8")
    return trace
