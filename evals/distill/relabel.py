"""The states an evaluated kitchen planner reached, labelled with what the greedy cook would have done there.

An eval's trace holds every prompt the planner was sent and its reply, but not the expert's choice. This plays
the trace's layout again as a DAgger roll-in (`record_layout`): the planner's seat is driven by its own recorded
replies (looked up by prompt, so no model runs), the partner is the greedy cook as in the eval, and each of the
planner's choices is recorded with the greedy cook's label and its situation class. Run deterministically (the
eval's seed, temperature 0), the replay meets the same prompts in the same order; where it meets one the trace does
not hold it stops and says where. The planner was asked the choices between `wait.` and `move away.` alone as
well, so the replay records and follows those too (`idle_choices`). The records carry the eval layout's own split
(the paper's seven are `test`), so they are for reading (`evals/distill/situations.py`), never for a training mix.

Run: `python -m coopgraph.evals.distill.relabel TRACE.jsonl -o RELABELLED.jsonl` (Overcooked; the planner as the
first cook beside `greedy`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from coopgraph.evals.decisions import DecisionRenderer
from coopgraph.evals.distill.mix import write_points
from coopgraph.evals.overcooked_decisions import LABELLERS, record_layout
from coopgraph.record.trace_file import NotATrace, load_trace
from coopgraph.testing import scripted_lm


class RelabelError(ValueError):
    """A trace this replay cannot follow: another world or team, or a prompt the trace does not hold."""


def recorded_replies(events: list[dict[str, Any]], agent: str) -> dict[str, str]:
    """The agent's replies keyed by the last message of their prompt (the state, its history and its list)."""
    return {str(e["prompt"][-1]["content"]): str(e["response"]) for e in events
            if e.get("type") == "llm_call" and e.get("agent") == agent and e.get("prompt")}


def relabel(path: Path, labeller: str = "greedy") -> tuple[list[dict[str, Any]], str]:
    """The planner's points of the trace at `path`, labelled by `labeller`'s rules (`LABELLERS`), and a line saying
    what was replayed."""
    try:
        events = load_trace(path)
    except NotATrace as exc:
        raise RelabelError(str(exc)) from None
    manifest = next((e for e in events if e["type"] == "manifest"), None)
    start = next((e for e in events if e["type"] == "episode_start"), None)
    if manifest is None or start is None:
        raise RelabelError(f"{path}: no manifest or episode_start event, so no layout, team or seed to replay")
    team, agents = list(manifest.get("team") or []), list(start.get("agents") or [])
    specs = manifest.get("specs") or {}
    if (manifest.get("env") != "overcooked" or len(team) != 2 or team[1] != "greedy" or len(agents) != 2
            or agents[0] not in specs):
        raise RelabelError(f"{path}: a {manifest.get('env')} run of team {team}; the replay follows an Overcooked "
                           "planner playing first beside the greedy cook")
    planner = agents[0]
    spec = specs[planner]["name"]
    replies = recorded_replies(events, planner)
    asked: list[bool] = []  # per decision replayed: whether the trace held its prompt

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        prompt = str(messages[-1].content)
        asked.append(prompt in replies)
        return replies.get(prompt, "")  # the chat model's errors are the node's to absorb: checked below

    episode = record_layout(str(start["episode"]), ["greedy", "greedy"], renderer=DecisionRenderer(spec),
                            seed=int(start.get("seed") or 0), horizon=int(start["max_steps"]),
                            learner_lm=scripted_lm(reply), idle_choices=True, labeller=labeller)
    if not all(asked):
        raise RelabelError(f"{path}: the replay left the trace at the planner's decision {asked.index(False) + 1}: "
                           f"its prompt is none of the {len(replies)} the trace holds (another version of the spec "
                           "or the world?)")
    points = [r for r in episode.records if r["agent"] == planner]
    calls = sum(1 for e in events if e.get("type") == "llm_call" and e.get("agent") == planner)
    return points, (f"{path.name}: {start['episode']}, {spec}, {len(points)} of the planner's points labelled "
                    f"({len(asked)} replies replayed, {calls} model calls in the trace)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="+", type=Path, help="eval traces (runs/X/traces/<suite>/<team>/*.jsonl)")
    parser.add_argument("-o", "--out", type=Path, required=True)
    parser.add_argument("--labeller", choices=list(LABELLERS), default="greedy",
                        help="the rules that label the planner's states (greedy-gates, greedy-ahead: see "
                             "`data decisions`)")
    args = parser.parse_args(argv)
    lines: list[str] = []
    points: list[dict[str, Any]] = []
    try:
        for path in args.traces:
            relabelled, line = relabel(path, args.labeller)
            points += relabelled
            lines.append(line)
    except RelabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_points(points, args.out)
    print("\n".join(lines) + f"\nwrote {len(points)} points to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
