"""The process measures of one run, per agent and for the team, with the marks the trace viewer draws.

Each measure is defined in docs/evals.md ("Process measures"). A measure the trace cannot give is a
`NotAvailable` with its reason, never a guess: a world whose acts name no objects has no duplicated effort to
count, a team whose members choose no plans has no plan a message could change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coopgraph.record.process.reading import Act, Episode, read_episode

#: Measure key → what it is (the unit is the world's: steps, frames, ticks or turns, unless said).
MEASURES: dict[str, str] = {
    "idle": "idle time (world time units per agent)",
    "idle_share": "idle share of the episode",
    "model_wait_s": "waiting for model answers (seconds per agent)",
    "partner_wait": "waiting for a partner (world time units per agent)",
    "duplicated": "duplicated effort (world time units two agents head for one object)",
    "conflicts": "conflicts (refused acts, blocked moves, objects taken by a partner)",
    "plan_changes": "messages that changed a partner's next plan",
    "work_share": "work share (per agent: its share of the progress; team: the largest share)",
}
#: Acts that do nothing on purpose, in every world that has them.
IDLE_KINDS = frozenset({"wait", "stay", "noop", "idle"})
#: Grid moves (Overcooked): the cell each one heads for, as (dx, dy) with y growing southwards.
GRID_MOVES = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
#: Per-agent progress counts some worlds put in `episode_end.per_agent` (Overcooked's soups, Escape's repairs).
PROGRESS_COUNTS = ("deliveries", "fixes")
NO_PARTNER_WAIT = ("the trace does not say when an agent held back for a partner (an env_step field naming the "
                   "partner an agent waits for would make it computable)")


@dataclass(frozen=True)
class NotAvailable:
    """A measure this trace cannot give, and why."""

    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"na": self.reason}


Value = float | NotAvailable


@dataclass
class ProcessMeasures:
    """Measures per agent and for the team, the world's time unit, and per agent the spans and steps to mark."""

    env: str
    unit: str
    time: int
    agents: dict[str, dict[str, Value]] = field(default_factory=dict)
    team: dict[str, Value] = field(default_factory=dict)
    marks: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    work_source: str | None = None  # where the work share's progress was read

    def as_dict(self) -> dict[str, Any]:
        def plain(values: dict[str, Value]) -> dict[str, Any]:
            return {k: v.as_dict() if isinstance(v, NotAvailable) else round(v, 4) for k, v in values.items()}

        return {"env": self.env, "unit": self.unit, "time": self.time, "measures": MEASURES,
                "agents": {a: plain(v) for a, v in self.agents.items()}, "team": plain(self.team),
                "marks": self.marks, "work_source": self.work_source}

    def flat(self) -> dict[str, Value]:
        """One value per column: `team.KEY` and `AGENT.KEY`, as the report's tables read them."""
        values: dict[str, Value] = {f"team.{k}": v for k, v in self.team.items()}
        for agent, measures in self.agents.items():
            values |= {f"{agent}.{k}": v for k, v in measures.items()}
        return values


def _add_span(spans: list[list[int]], start: int, end: int) -> None:
    """Add [start, end] (world steps) to a list of spans, joining it to the last one when they touch."""
    if spans and spans[-1][1] >= start - 1:
        spans[-1][1] = max(spans[-1][1], end)
    else:
        spans.append([start, end])


def _is_idle(act: Act) -> bool:
    if act.action is None:
        return act.ready is not False  # no act while a long one runs (ready False) is being busy, not idle
    return act.kind in IDLE_KINDS


def _cell_ahead(act: Act, before: Act | None) -> tuple[float, float] | None:
    """The cell a grid move heads for, from where the agent stood before it."""
    if act.kind not in GRID_MOVES or before is None or before.position is None:
        return None
    dx, dy = GRID_MOVES[act.kind]
    return before.position[0] + dx, before.position[1] + dy


def _blocked(act: Act, before: Act | None, partners: list[tuple[Act, Act | None]]) -> bool:
    """A grid move that left the agent where it was while a partner stood on the cell it moved towards, or moved
    towards the same cell in the same step (`partners`: each partner's act and its act the step before)."""
    ahead = _cell_ahead(act, before)
    if ahead is None or before is None or act.position != before.position:
        return False
    for partner, partner_before in partners:
        if partner_before is not None and partner_before.position is not None \
                and partner_before.position[:2] == ahead:
            return True
        if _cell_ahead(partner, partner_before) == ahead:
            return True
    return False


def _ids(held: list[Any]) -> set[int]:
    return {h for h in held if isinstance(h, int)}


def _timeline(episode: Episode, measures: ProcessMeasures) -> None:
    """Idle time, duplicated effort and conflicts, step by step."""
    idle = dict.fromkeys(episode.agents, 0.0)
    duplicated = dict.fromkeys(episode.agents, 0.0)
    conflicts = dict.fromkeys(episode.agents, 0.0)
    team_duplicated = 0.0
    taken_seen: set[tuple[str, int]] = set()
    previous: dict[str, Act] = {}
    for acts in episode.steps:
        heading: dict[int, list[str]] = {}
        for agent, act in acts.items():
            marks = measures.marks.setdefault(agent, {"idle": [], "duplicated": [], "conflicts": [],
                                                      "plan_changes": []})
            if _is_idle(act):
                idle[agent] = idle.get(agent, 0.0) + act.span
                _add_span(marks["idle"], act.step - act.span + 1, act.step)
            partners = [a for name, a in acts.items() if name != agent]
            conflict = None
            if not act.ok:
                conflict = f"refused: {act.reason or act.action}"
            elif _blocked(act, previous.get(agent), [(p, previous.get(p.agent)) for p in partners]):
                conflict = f"blocked: {act.action}"
            elif act.target is not None and act.target not in _ids(act.held) and (agent, act.target) not in taken_seen:
                holder = next((p.agent for p in partners if act.target in _ids(p.held)), None)
                if holder is not None:
                    taken_seen.add((agent, act.target))
                    conflict = f"taken: ({act.target}) by {holder}"
            if conflict is not None:
                conflicts[agent] = conflicts.get(agent, 0.0) + 1
                marks["conflicts"].append({"step": act.step, "what": conflict})
            if act.target is not None:
                heading.setdefault(act.target, []).append(agent)
        shared = [names for names in heading.values() if len(names) > 1]
        if shared:
            span = next(iter(acts.values())).span
            team_duplicated += span
            step = next(iter(acts.values())).step
            for name in {n for names in shared for n in names}:
                duplicated[name] = duplicated.get(name, 0.0) + span
                _add_span(measures.marks[name]["duplicated"], step - span + 1, step)
        previous.update(acts)
    no_targets = NotAvailable("no act or plan in the trace names a thing by id (the world's acts are moves), so "
                              "nothing shows what an agent is heading for")
    for agent in episode.agents:
        row = measures.agents.setdefault(agent, {})
        row["idle"] = idle.get(agent, 0.0)
        row["idle_share"] = idle.get(agent, 0.0) / measures.time if measures.time else 0.0
        row["duplicated"] = duplicated.get(agent, 0.0) if episode.labelled else no_targets
        row["conflicts"] = conflicts.get(agent, 0.0)
    count = max(len(episode.agents), 1)
    measures.team["idle"] = sum(idle.values()) / count
    measures.team["idle_share"] = sum(idle.values()) / (count * measures.time) if measures.time else 0.0
    measures.team["duplicated"] = team_duplicated if episode.labelled else no_targets
    measures.team["conflicts"] = sum(conflicts.values())


def _changed_plan(episode: Episode, message: dict[str, Any], receiver: str) -> dict[str, Any] | None:
    """The receiver's new plan when the message made it drop the one it was pursuing, else None.

    It was pursuing a plan when its last plan before the message had not ended; the message changed it when the
    receiver's next plan event comes at most one step after the message (its first decision with the message
    in hand), replaces that plan before it ended, and differs from it."""
    mine = [p for p in episode.plans if str(p.get("agent")) == receiver]
    before = [p for p in mine if p["index"] < message["index"]]
    if not before or before[-1].get("type") != "plan":
        return None
    pursued = before[-1]
    after = next((p for p in mine if p["index"] > message["index"]), None)
    if after is None or after.get("type") != "plan":
        return None
    soon = int(after.get("step", 0)) <= int(message.get("step", 0)) + 1
    return after if soon and after.get("plan") != pursued.get("plan") else None


def _plan_changes(episode: Episode, measures: ProcessMeasures) -> None:
    planners = {str(p.get("agent")) for p in episode.plans if p.get("type") == "plan"}
    changes = dict.fromkeys(episode.agents, 0.0)
    for message in episode.messages:
        sender = str(message.get("agent"))
        for receiver in episode.agents:
            if receiver == sender or receiver not in planners:
                continue
            new = _changed_plan(episode, message, receiver)
            if new is not None:
                changes[sender] = changes.get(sender, 0.0) + 1
                measures.marks.setdefault(receiver, {}).setdefault("plan_changes", []).append(
                    {"step": int(new.get("step", 0)), "from": sender, "plan": new.get("plan")})
    unseen = NotAvailable("no agent chose a plan in the trace (no `plan` events), so a plan change cannot be seen")
    senders = {str(m.get("agent")) for m in episode.messages}
    for agent in episode.agents:
        heard_by_planner = any(r in planners for r in episode.agents if r != agent)
        seen = agent not in senders or heard_by_planner
        measures.agents[agent]["plan_changes"] = changes.get(agent, 0.0) if seen else unseen
    measures.team["plan_changes"] = sum(changes.values()) if not episode.messages or planners else unseen


def _credits(episode: Episode) -> tuple[dict[str, float], str]:
    """Progress credited to each agent, and where it was read: the world's per-agent counts, else each rise of the
    team's subgoal count split among the agents that put something down in that step."""
    for key in PROGRESS_COUNTS:
        counts = {a: float(episode.per_agent.get(a, {}).get(key) or 0) for a in episode.agents}
        if any(key in episode.per_agent.get(a, {}) for a in episode.agents) and sum(counts.values()) > 0:
            return counts, f"episode_end per_agent.{key}"
    credits = dict.fromkeys(episode.agents, 0.0)
    done_before = 0.0
    held_before: dict[str, int] = {}
    for acts, event_done in zip(episode.steps, episode.progress, strict=True):
        rise = event_done - done_before if event_done is not None else 0.0
        if rise > 0:
            droppers = [a for a, act in acts.items() if len(act.held) < held_before.get(a, 0)]
            for agent in droppers:
                credits[agent] = credits.get(agent, 0.0) + rise / len(droppers)
        if event_done is not None:
            done_before = event_done
        held_before.update({a: len(act.held) for a, act in acts.items()})
    return credits, "rises of subgoals_done, credited to the agents that put something down in that step"


def _work_share(episode: Episode, measures: ProcessMeasures) -> None:
    credits, source = _credits(episode)
    total = sum(credits.values())
    if not total:
        nothing = NotAvailable("no progress in the trace can be credited to one agent: no per-agent progress "
                               "counts, and no subgoal rose in a step where an agent put something down")
        for agent in episode.agents:
            measures.agents[agent]["work_share"] = nothing
        measures.team["work_share"] = nothing
        return
    for agent in episode.agents:
        measures.agents[agent]["work_share"] = credits.get(agent, 0.0) / total
    measures.team["work_share"] = max(credits.values()) / total
    measures.work_source = source


def measure_episode(episode: Episode) -> ProcessMeasures:
    """Every measure of one episode read from its trace."""
    measures = ProcessMeasures(env=episode.env, unit=episode.unit, time=episode.time)
    if not episode.steps:
        empty = NotAvailable("the trace has no env_step events")
        measures.agents = {a: dict.fromkeys(MEASURES, empty) for a in episode.agents}
        measures.team = dict.fromkeys(MEASURES, empty)
        return measures
    _timeline(episode, measures)
    for agent in episode.agents:
        measures.agents[agent]["model_wait_s"] = episode.model_wait_s.get(agent, 0.0)
        measures.agents[agent]["partner_wait"] = NotAvailable(NO_PARTNER_WAIT)
    count = max(len(episode.agents), 1)
    measures.team["model_wait_s"] = sum(episode.model_wait_s.get(a, 0.0) for a in episode.agents) / count
    measures.team["partner_wait"] = NotAvailable(NO_PARTNER_WAIT)
    _plan_changes(episode, measures)
    _work_share(episode, measures)
    return measures


def process_measures(events: list[dict[str, Any]]) -> ProcessMeasures:
    """The process measures of the run these trace events record."""
    return measure_episode(read_episode(events))
