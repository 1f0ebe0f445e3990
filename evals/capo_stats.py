"""CaPo's own statistics (tables 8 and 9 of the paper) for one episode, read from its trace's events.

The discussion leaves `discussion` events (the designer's: `init plan V.1`, `refine plan V.R`, `adapt plan V.1`
with `sent`, `consensus on V.R`, `budget spent at V.R`, `refinement of V.R unchanged: ...`, `plan V still fits`)
and every message a `message` event. From them, per episode:

- `capo_meta_plans`: meta-plan versions written, the first one included (table 9, "rounds of meta-plan
  updates" per task; each version in the paper is followed by a discussion);
- `capo_discussions`: versions that were sent to the team and settled (consensus or budget spent);
- `capo_no_consensus`: those that ended without consensus: the round budget spent, or a refinement the
  designer left unchanged while an evaluator still wanted a change;
- `capo_failure_rate`: `capo_no_consensus / capo_discussions` (table 8, "rate of failed cases");
- `capo_rounds_per_discussion`: plan rounds per sent version (table 9, "rounds of discussion per meta-plan");
- `capo_chars_per_meta_plan`: characters of all discussion messages (plan parts, answers, progress reports)
  per sent version (table 9, "character cost per meta-plan");
- `capo_message_steps`: steps the team spent sending discussion messages (table 9 counts TDW frames, one per
  500 characters; in C-WAH every message, each part of a long plan included, takes one step);
- `capo_plans_kept`: plan-fit checks that kept the plan, so nobody spoke (appendix A.6 a).

An episode without any discussion event (no CaPo agent) has none of these keys.
"""

from __future__ import annotations

import re
from typing import Any

from coopgraph.nodes.capo_protocol import parse_message

CAPO_METRICS: dict[str, str] = {
    "capo_meta_plans": "CaPo meta-plans per task (t.9 updates)",
    "capo_discussions": "CaPo discussions settled",
    "capo_no_consensus": "CaPo discussions without consensus",
    "capo_failure_rate": "CaPo share of discussions without consensus (t.8)",
    "capo_rounds_per_discussion": "CaPo rounds per discussion (t.9)",
    "capo_chars_per_meta_plan": "CaPo characters per meta-plan (t.9)",
    "capo_message_steps": "CaPo message steps per task (t.9)",
    "capo_plans_kept": "CaPo plans kept by the fit check (A.6 a)",
}
_DESIGN = re.compile(r"^(?P<how>init|adapt|refine) plan (?P<version>\d+)\.(?P<round>\d+)$")
_FAILED = re.compile(r"^(budget spent at|refinement of) (?P<version>\d+)\.\d+")
_AGREED = re.compile(r"^consensus on (?P<version>\d+)\.\d+$")
_KEPT = re.compile(r"^plan \d+ still fits$")


def capo_statistics(events: list[dict[str, Any]]) -> dict[str, float]:
    """Tables 8 and 9 of CaPo for one episode's events; empty when nobody discussed a meta-plan."""
    talk = [e for e in events if e.get("type") == "discussion"]
    if not talk:
        return {}
    versions: set[tuple[str, int]] = set()
    rounds: dict[tuple[str, int], int] = {}  # sent versions → highest round sent
    outcome: dict[tuple[str, int], bool] = {}  # settled versions → consensus reached
    kept = 0
    for event in talk:
        agent, what = str(event.get("agent", "")), str(event.get("what", ""))
        if (design := _DESIGN.match(what)) is not None:
            key = (agent, int(design["version"]))
            if design["how"] != "refine":
                versions.add(key)
            if event.get("sent"):
                rounds[key] = max(rounds.get(key, 0), int(design["round"]))
        elif (agreed := _AGREED.match(what)) is not None:
            outcome[(agent, int(agreed["version"]))] = True
        elif (failed := _FAILED.match(what)) is not None:
            outcome.setdefault((agent, int(failed["version"])), False)
        elif _KEPT.match(what):
            kept += 1
    settled = [ok for key, ok in outcome.items() if key in rounds]
    chars = steps = 0
    for event in events:
        if event.get("type") == "message" and parse_message(str(event.get("agent", "")), str(event.get("text", ""))):
            chars += int(event.get("chars") or len(str(event.get("text", ""))))
            steps += 1
    stats: dict[str, float] = {
        "capo_meta_plans": float(len(versions)),
        "capo_discussions": float(len(settled)),
        "capo_no_consensus": float(settled.count(False)),
        "capo_message_steps": float(steps),
        "capo_plans_kept": float(kept),
    }
    if settled:
        stats["capo_failure_rate"] = settled.count(False) / len(settled)
    if rounds:
        stats["capo_rounds_per_discussion"] = sum(rounds.values()) / len(rounds)
        stats["capo_chars_per_meta_plan"] = chars / len(rounds)
    return stats
