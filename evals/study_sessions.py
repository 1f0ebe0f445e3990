"""`coopgraph play --study SUITE --participant ID`: the participant's next session of a user study, stored as a row.

An evaluation, so it lives with the evaluations: the play front end that seats the person is passed in (`play`),
and only the runtime's `PlayAbandoned` is needed to tell a session the person left.

The row is written as `playing` before the episode starts and replaced when it ends: `done` with the metrics and
the ratings, or `abandoned` when the person leaves; a killed process leaves `playing`. Either way the next call
offers the same session again from its start, and no row is ever half written (each is one store transaction).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coopgraph.evals.store import open_store
from coopgraph.evals.suite import _slug, config_hash, load_suite, member_llms
from coopgraph.evals.user_study import Session, check_participant, check_study, next_session
from coopgraph.runtime.abandoned import PlayAbandoned


def _row(session: Session, suite: Any, llms: list[str | None], digest: str, trace: Path) -> dict[str, Any]:
    team = session.team
    return {"suite": suite.name, "team": team.label, "env": suite.environment.name, "episode": session.episode,
            "seed": session.seed, "repeat": session.ordinal, "config_hash": digest,
            "members": [m.name for m in team.members], "llms": llms,
            "env_options": {**suite.environment.options, **team.env_options}, "run_id": uuid.uuid4().hex,
            "host": socket.gethostname(), "pid": os.getpid(), "study": session.study, "trace_path": str(trace),
            "started_at": time.time(), "status": "playing"}


def _done(row: dict[str, Any], result: dict[str, Any], ratings: dict[str, Any] | None) -> dict[str, Any]:
    metrics = {k: v if isinstance(v, dict) else float(v) for k, v in result["metrics"].items()}
    if ratings is not None:
        metrics.update(helpfulness=float(ratings["helpfulness"]), trust=float(ratings["trust"]))
    return {**row, **{k: v for k, v in metrics.items() if k in ("subgoals_done", "subgoals_total",
                                                                  "communication_steps", "characters_sent")},
            "status": "done", "success": float(result["success"]), "steps": result["steps"],
            "max_steps": result["max_steps"], "metrics": metrics, "per_agent": result.get("per_agent"),
            "llm_usage": result.get("llm_usage"), "wall_time_s": result.get("wall_time_s"),
            "model_seeds": result.get("model_seeds"), "deterministic": result.get("deterministic"),
            "study": {**row["study"], "ratings": ratings}, "finished_at": time.time()}


def play_study(suite_ref: str, participant: str, out: Path, play: Callable[..., dict[str, Any]], *,
               llm: str | None = None, say: Callable[[str], None] = print) -> dict[str, Any] | None:
    """Play the participant's next session with `play(env=, episode=, team=, llm=, out=, env_options=,
    max_steps=, seed=, trace_name=, participant=)` (a front end's runner returning the result with `ratings`);
    returns the result, or None when the participant has played every session."""
    check_participant(participant)
    suite, path, text = load_suite(suite_ref)
    check_study(suite, str(path))
    with open_store(out) as store:
        store.save_suite(suite.name, str(path), text)
        session = next_session(store, suite, participant)
        if session is None:
            say(f"{participant} has played every session of {suite.name}")
            return None
        llms = member_llms(suite, session.team, llm)
        digest = config_hash(suite, session.team, llms, suite.max_steps)
        folder = out / "traces" / _slug(suite.name) / _slug(session.team.label)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        trace = folder / f"{_slug(session.episode)}-{participant}-s{session.index}-{stamp}.jsonl"
        row = _row(session, suite, llms, digest, trace)
        store.record(row)
    say(f"{participant}, session {session.index + 1} of {len(suite.teams)}: {suite.environment.name} episode "
        f"{session.episode} (the partner's name stays hidden)")
    try:
        result = play(env=suite.environment.name, episode=session.episode,
                      team=[m.name for m in session.team.members], llm=llms, out=folder,
                      env_options=row["env_options"], max_steps=suite.max_steps, seed=session.seed,
                      trace_name=trace.name, participant=participant)
    except PlayAbandoned as exc:
        with open_store(out) as store:
            store.record({**row, "status": "abandoned", "error": str(exc), "finished_at": time.time()})
        raise
    with open_store(out) as store:
        store.record(_done(row, result, result.get("ratings")))
    return {**result, "study": session.study, "condition": session.team.label}
