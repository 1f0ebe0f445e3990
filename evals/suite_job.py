"""Runs one suite job in whatever process it lands in (the parent, a pool worker or a Ray task).

It takes and returns plain dicts so every backend can ship it, never raises (a failed episode becomes an
`error` row that the next rerun retries), and derives from the trace what the store keeps beyond the
episode metrics: the progress curve, the number of decisions, the oracle bound, and CaPo's discussion
statistics (tables 8-9, `capo_stats.py`), which go into the row's `metrics`. The job's seed and repeat make it one
replicate: its graph members sample with that replicate's model seeds, which the row records with whether any
member sampled (`deterministic`).
"""

from __future__ import annotations

import os
import socket
import time
import traceback
import uuid
from typing import Any

from coopgraph.evals.capo_stats import capo_statistics
from coopgraph.evals.suite import Job


def _llm_for(job: Job) -> Any:
    """One LLM setting for the team, or one per member when they differ (None for baselines)."""
    settings = sorted({s for s in job.llms if s})
    if not settings:
        return "local"  # baselines only: never called
    if len(settings) == 1:
        return settings[0]
    return [s or None for s in job.llms]


def progress_from_events(events: list[dict[str, Any]]) -> list[list[int]]:
    """[step, subgoals done] at every step where the count changed (the first step always included)."""
    points: list[list[int]] = []
    for event in events:
        if event.get("type") != "env_step" or event.get("subgoals_done") is None:
            continue
        done = int(event["subgoals_done"])
        if not points or points[-1][1] != done:
            points.append([int(event["step"]), done])
    return points


def decisions_from_events(events: list[dict[str, Any]]) -> int:
    """High-level plans chosen by all agents (each `plan` event is one decision)."""
    return sum(1 for e in events if e.get("type") == "plan")


def oracle_bound_for(env_name: str, env_options: dict[str, Any], episode: str, num_agents: int) -> float | None:
    """The admissible lower bound on team steps, where the environment has one (C-WAH)."""
    from coopgraph import envs
    from coopgraph.envs.cwah.episode import Episode

    env = envs.make(env_name, episode=episode, num_agents=num_agents, **env_options)
    if not isinstance(getattr(env, "episode", None), Episode):
        return None
    from coopgraph.envs.cwah.experts.oracle import oracle_bound

    return float(oracle_bound(env.episode, num_agents, getattr(env, "config", None)))


def tdw_bound_for(env_name: str, env_options: dict[str, Any], episode: str, num_agents: int) -> float | None:
    """The admissible upper bound on transport rate, where the environment is TDW-MAT."""
    if env_name != "tdw-mat":
        return None
    from coopgraph import envs
    from coopgraph.envs.tdw_mat.experts.oracle import tdw_bound

    env = envs.make(env_name, episode=episode, num_agents=num_agents, **env_options)
    return tdw_bound(env.episode, num_agents, env.rules).transport_rate


def _base_row(job: Job) -> dict[str, Any]:
    return {
        **{k: getattr(job, k) for k in ("suite", "team", "env", "episode", "seed", "repeat", "config_hash")},
        "members": job.members, "llms": job.llms, "env_options": job.env_options,
        "run_id": uuid.uuid4().hex, "host": socket.gethostname(), "pid": os.getpid(),
    }


def run_job(job_data: dict[str, Any]) -> dict[str, Any]:
    """Run one job and return the store row (status `done` or `error`)."""
    from coopgraph.record.trace_file import read_events

    job = Job.model_validate(job_data)
    row = _base_row(job)
    row["started_at"] = time.time()
    trace = job.trace_file()
    try:
        from coopgraph.runtime.launch import run_configured

        trace.unlink(missing_ok=True)  # a run killed earlier may have left a partial trace here
        result = run_configured(job.env, job.env_options, job.episode, job.members, _llm_for(job), job.max_steps,
                                trace.parent, seed=job.seed, repeat=job.repeat, trace_name=trace.name,
                                response_cache=job.response_cache, wall_budget_s=job.wall_budget_s)
        events = read_events(trace)
        metrics = {k: v if isinstance(v, dict) else float(v) for k, v in result.metrics.items()}
        metrics.update(capo_statistics(events))
        if result.stopped_at_budget is not None:  # a partial episode: the row says where its budget stopped it
            metrics["stopped_at_budget"] = result.stopped_at_budget.model_dump()
        usage = result.llm_usage
        row.update(metrics)
        row.update({
            "status": "done", "success": float(result.success), "steps": result.steps,
            "max_steps": result.max_steps, "metrics": metrics, "per_agent": result.per_agent,
            "llm_usage": usage, "invalid_answers": result.invalid_answers,
            "llm_calls": sum(u.get("llm_calls", 0) for u in usage.values()),
            "prompt_tokens": sum(u.get("prompt_tokens", 0) for u in usage.values()),
            "completion_tokens": sum(u.get("completion_tokens", 0) for u in usage.values()),
            "decisions": decisions_from_events(events), "progress": progress_from_events(events),
            "wall_time_s": result.wall_time_s, "trace_path": str(trace),
            "versions": next((e.get("versions") for e in events if e.get("type") == "manifest"), None),
            "model_seeds": result.model_seeds, "deterministic": result.deterministic,
        })
        try:
            tr_bound = tdw_bound_for(job.env, job.env_options, job.episode, len(job.members))
            if tr_bound is not None:  # kept among the metrics (the store's columns are C-WAH's)
                row["metrics"]["tr_bound"] = tr_bound
            row["oracle_bound"] = oracle_bound_for(job.env, job.env_options, job.episode, len(job.members))
        except Exception:  # noqa: BLE001 - a missing bound must not lose a finished episode
            row["oracle_bound"] = None
    except Exception as exc:  # noqa: BLE001 - recorded as an error row, retried on the next run
        tail = "".join(traceback.format_exception(exc)[-3:])
        row.update({"status": "error", "error": f"{type(exc).__name__}: {exc}\n{tail}"[-4000:],
                    "trace_path": str(trace) if trace.exists() else None})
    row["finished_at"] = time.time()
    return row


def error_row(job: Job, message: str) -> dict[str, Any]:
    """A row for a job whose worker died before it could report."""
    now = time.time()
    return {**_base_row(job), "status": "error", "error": message, "started_at": now, "finished_at": now}


