"""`coopgraph trace diff A B`: two runs of the same episode side by side, step by step.

Useful to see where an ablation, another LLM or another seed first made a team act differently, and what
that cost: the first differing step, the plans each side chose, and the metrics of both runs. When one trace is
a `coopgraph fork` of the other, the diff also shows the branch: the step the fork started from, what it
changed, and the first step after it where the actions part.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from coopgraph.record.trace_file import read_events

LLM_KEYS = ("llm_calls", "prompt_tokens", "completion_tokens")
METRIC_KEYS = ("success", "steps", "subgoals_done", "travel_distance", "communication_steps", "characters_sent",
               "invalid_actions")


@dataclass
class Run:
    """What the diff needs of one trace."""

    path: Path
    env: str | None
    episode: str | None
    team: list[str]
    agents: list[str]
    actions: dict[int, dict[str, str]]  # step → agent → action text
    plans: dict[int, dict[str, str]]  # step → agent → plan chosen at that step
    metrics: dict[str, Any]
    llm: dict[str, int] = field(default_factory=dict)
    forked_from: dict[str, Any] | None = None  # set on a fork: the original trace, the step, what changed


def load_run(path: str | Path) -> Run:
    events = read_events(path)
    start = next((e for e in events if e.get("type") == "episode_start"), {})
    end = next((e for e in events if e.get("type") == "episode_end"), {})
    actions: dict[int, dict[str, str]] = {}
    plans: dict[int, dict[str, str]] = {}
    llm = {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    for event in events:
        if event.get("type") == "env_step":
            actions[int(event["step"])] = {a: str(i.get("action")) for a, i in (event.get("agents") or {}).items()}
        elif event.get("type") == "plan" and event.get("agent"):
            plans.setdefault(int(event.get("step", 0)), {})[event["agent"]] = str(event.get("plan"))
        elif event.get("type") == "llm_call":
            llm["llm_calls"] += 1
            llm["prompt_tokens"] += int(event.get("prompt_tokens") or 0)
            llm["completion_tokens"] += int(event.get("completion_tokens") or 0)
    metrics = dict(end.get("metrics") or {})
    metrics.setdefault("steps", max(actions, default=0))
    return Run(Path(path), start.get("env"), start.get("episode"), list(start.get("team") or []),
               list(start.get("agents") or []), actions, plans, metrics, llm, start.get("forked_from"))


@dataclass(frozen=True)
class Branch:
    """Where one side of a diff forked: `side` ("A" or "B") was forked at `step`, from the other side when
    `of_other`, else from another trace (`origin`)."""

    side: str
    step: int
    origin: str
    of_other: bool
    changes: dict[str, Any]

    def changed(self) -> str:
        """`say alice: "…"`, `team bob: mhp → coela`, `llm local-tiny`, or `nothing`."""
        parts = []
        if self.changes.get("llm"):
            parts.append(f"llm {self.changes['llm']}")
        for agent, swap in (self.changes.get("team") or {}).items():
            parts.append(f"team {agent}: {swap.get('from')} → {swap.get('to')}")
        said = self.changes.get("say")
        if said:
            parts.append(f"say {said.get('agent')}: {json.dumps(said.get('text'), ensure_ascii=False)}")
        return "; ".join(parts) or "nothing"


def _branch(a: Run, b: Run) -> Branch | None:
    for side, fork, other in (("B", b, a), ("A", a, b)):
        record = fork.forked_from
        if isinstance(record, dict) and "step" in record:
            origin = str(record.get("trace"))
            same = Path(origin).resolve() == other.path.resolve()
            return Branch(side, int(record["step"]), origin, same, dict(record.get("changes") or {}))
    return None


@dataclass
class Comparison:
    a: Run
    b: Run
    first_difference: int | None
    differing_steps: int
    branch: Branch | None = None
    first_difference_after_fork: int | None = None  # the first differing step after the branch (steps > it)

    @property
    def same_episode(self) -> bool:
        return (self.a.env, self.a.episode) == (self.b.env, self.b.episode)

    @property
    def agents(self) -> list[str]:
        return list(dict.fromkeys([*self.a.agents, *self.b.agents]))

    def summary(self) -> dict[str, Any]:
        return {
            "a": {"trace": str(self.a.path), "team": self.a.team, "metrics": self.a.metrics, "llm": self.a.llm},
            "b": {"trace": str(self.b.path), "team": self.b.team, "metrics": self.b.metrics, "llm": self.b.llm},
            "env": self.a.env, "episode": self.a.episode, "same_episode": self.same_episode,
            "first_difference": self.first_difference, "differing_steps": self.differing_steps,
            "delta": {k: _delta(self.a.metrics.get(k), self.b.metrics.get(k)) for k in METRIC_KEYS},
            "fork": None if self.branch is None else {
                "side": self.branch.side, "step": self.branch.step, "from": self.branch.origin,
                "of_other": self.branch.of_other, "changes": self.branch.changes,
                "first_difference": self.first_difference_after_fork},
        }

    def branch_line(self) -> str | None:
        """One sentence on the branch, or None when neither side is a fork."""
        if self.branch is None:
            return None
        other = "A" if self.branch.side == "B" else "B"
        parent = other if self.branch.of_other else self.branch.origin
        after = self.first_difference_after_fork
        parted = "none (the same actions to the end)" if after is None else f"step {after}"
        return (f"{self.branch.side} forks {parent} at step {self.branch.step} (changed: {self.branch.changed()}); "
                f"its own actions start at step {self.branch.step + 1}; first difference after the fork: {parted}")


def _delta(a: Any, b: Any) -> float | None:
    return None if a is None or b is None else float(b) - float(a)


def compare(first: str | Path, second: str | Path) -> Comparison:
    a, b = load_run(first), load_run(second)
    steps = sorted(set(a.actions) | set(b.actions))
    differing = [s for s in steps if a.actions.get(s) != b.actions.get(s)]
    branch = _branch(a, b)
    after = None if branch is None else next((s for s in differing if s > branch.step), None)
    return Comparison(a, b, differing[0] if differing else None, len(differing), branch, after)


def _rows(c: Comparison) -> list[tuple[int, dict[str, str], dict[str, str], bool]]:
    steps = sorted(set(c.a.actions) | set(c.b.actions) | set(c.a.plans) | set(c.b.plans))
    rows = []
    for step in steps:
        left = {ag: _cell(c.a, step, ag) for ag in c.agents}
        right = {ag: _cell(c.b, step, ag) for ag in c.agents}
        rows.append((step, left, right, c.a.actions.get(step) != c.b.actions.get(step)))
    return rows


def _cell(run: Run, step: int, agent: str) -> str:
    plan = run.plans.get(step, {}).get(agent)
    action = run.actions.get(step, {}).get(agent, "")
    return f"{'plan ' + plan + ' | ' if plan else ''}{action}"


def render_text(c: Comparison, width: int = 60) -> str:
    lines = [f"A: {c.a.path} ({' + '.join(c.a.team)})", f"B: {c.b.path} ({' + '.join(c.b.team)})"]
    if not c.same_episode:
        lines.append(f"warning: different episodes ({c.a.env} {c.a.episode} vs {c.b.env} {c.b.episode})")
    first = "none (the same actions at every step)" if c.first_difference is None else f"step {c.first_difference}"
    lines.append(f"episode {c.a.env} {c.a.episode}: first difference: {first}, {c.differing_steps} differing steps")
    branch = c.branch_line()
    if branch is not None:
        lines.append(branch)
    lines.append(f"{'metric':<22}{'A':>12}{'B':>12}{'B-A':>10}")
    for key in METRIC_KEYS:
        va, vb = c.a.metrics.get(key), c.b.metrics.get(key)
        d = _delta(va, vb)
        lines.append(f"{key:<22}{_num(va):>12}{_num(vb):>12}{_num(d):>10}")
    for key in LLM_KEYS:
        lines.append(f"{key:<22}{c.a.llm[key]:>12}{c.b.llm[key]:>12}{c.b.llm[key] - c.a.llm[key]:>10}")
    lines.append("")
    marked = c.branch is None
    for step, left, right, differs in _rows(c):
        if not marked and c.branch is not None and step >= c.branch.step:
            lines.append(f"{'':─<6} {_branch_mark(c.branch)} {'':─<20}")
            marked = True
        mark = "≠" if differs else " "
        for i, agent in enumerate(c.agents):
            head = f"{step:>4} {mark}" if i == 0 else "      "
            lines.append(f"{head} {agent:<6} {left[agent][:width]:<{width}} │ {right[agent][:width]}")
    return "\n".join(lines) + "\n"


def _branch_mark(branch: Branch) -> str:
    """The line drawn across the steps where the fork starts (plans of a step are decided at it, its actions are
    listed at the next step, so the fork's own plans start at its row and its own actions one row later)."""
    return (f"{branch.side} branches here, at step {branch.step}: its plans from step {branch.step} on and its "
            f"actions from step {branch.step + 1} on are its own")


def _num(value: Any) -> str:
    if value is None:
        return "–"
    value = float(value)
    return f"{value:.0f}" if value.is_integer() else f"{value:.2f}"


_STYLE = """body{font:13px system-ui,sans-serif;margin:18px;color:#1d2330}table{border-collapse:collapse}
td,th{border-bottom:1px solid #e5e7eb;padding:3px 8px;vertical-align:top;text-align:left}
td.act{font-family:ui-monospace,monospace;font-size:12px;max-width:520px}tr.diff td{background:#fff8e6}
tr.fork td{background:#e8f0fe;font-weight:600;border-top:2px solid #3b6fd8}
th{position:sticky;top:0;background:#f6f7f9}.num{text-align:right}"""


def render_html(c: Comparison) -> str:
    """A self-contained page: metrics side by side, then every step with A's and B's actions."""
    metric_rows = "".join(
        f"<tr><td>{escape(k)}</td><td class=num>{_num(c.a.metrics.get(k))}</td><td class=num>"
        f"{_num(c.b.metrics.get(k))}</td><td class=num>{_num(_delta(c.a.metrics.get(k), c.b.metrics.get(k)))}</td></tr>"
        for k in METRIC_KEYS)
    metric_rows += "".join(
        f"<tr><td>{k}</td><td class=num>{c.a.llm[k]}</td><td class=num>{c.b.llm[k]}</td>"
        f"<td class=num>{c.b.llm[k] - c.a.llm[k]}</td></tr>" for k in LLM_KEYS)
    head = "".join(f"<th>{side} · {escape(a)}</th>" for side in "AB" for a in c.agents)
    body = []
    marked = c.branch is None
    for step, left, right, differs in _rows(c):
        if not marked and c.branch is not None and step >= c.branch.step:
            body.append(f"<tr class=fork data-fork='{c.branch.step}'><td colspan={1 + 2 * len(c.agents)}>"
                        f"{escape(_branch_mark(c.branch))}</td></tr>")
            marked = True
        cells = "".join(f"<td class=act>{escape(left[a])}</td>" for a in c.agents)
        cells += "".join(f"<td class=act>{escape(right[a])}</td>" for a in c.agents)
        body.append(f"<tr class='{'diff' if differs else ''}' data-step='{step}'><td>{step}</td>{cells}</tr>")
    warning = "" if c.same_episode else "<p><b>Warning:</b> the traces are of different episodes.</p>"
    branch = c.branch_line()
    warning += "" if branch is None else f"<p class=branch><b>Fork:</b> {escape(branch)}</p>"
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>trace diff {escape(str(c.a.episode))}"
            f"</title><style>{_STYLE}</style></head><body><h1>Trace diff: {escape(str(c.a.env))} "
            f"{escape(str(c.a.episode))}</h1><p>A: {escape(str(c.a.path))} ({escape(' + '.join(c.a.team))})<br>"
            f"B: {escape(str(c.b.path))} ({escape(' + '.join(c.b.team))})</p>{warning}"
            f"<p>First difference at step {c.first_difference}; {c.differing_steps} differing steps "
            f"(highlighted).</p><table><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th></tr>{metric_rows}</table>"
            f"<h2>Steps</h2><table id=steps><tr><th>step</th>{head}</tr>{''.join(body)}</table></body></html>\n")
