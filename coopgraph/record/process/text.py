"""`coopgraph trace process TRACE`: one run's process measures as a small text table, n/a with their reasons."""

from __future__ import annotations

from coopgraph.record.process.measures import MEASURES, NotAvailable, ProcessMeasures, Value

SHORT = {"idle": "idle", "idle_share": "idle %", "model_wait_s": "model wait s", "partner_wait": "partner wait",
         "duplicated": "duplicated", "conflicts": "conflicts", "plan_changes": "plan changes",
         "work_share": "work share"}


def _cell(key: str, value: Value | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, NotAvailable):
        return "n/a"
    if key in ("idle_share", "work_share"):
        return f"{value * 100:.0f}%"
    return f"{value:.2f}" if key == "model_wait_s" else f"{value:g}"


def render_text(measures: ProcessMeasures, name: str = "") -> str:
    """Agents as rows (the team last), measures as columns; then what the time unit is and why any cell is n/a."""
    keys = list(MEASURES)
    rows = [[agent, *(_cell(k, values.get(k)) for k in keys)] for agent, values in measures.agents.items()]
    rows.append(["team", *(_cell(k, measures.team.get(k)) for k in keys)])
    head = ["agent", *(SHORT[k] for k in keys)]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = [f"{name}: {measures.env}, {measures.time} {measures.unit}" if name else
             f"{measures.env}, {measures.time} {measures.unit}"]
    lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
              for r in [head, *rows]]
    lines.append(f"Time in {measures.unit}; model wait in seconds; team idle and model wait are per agent, team work "
                 "share is the largest agent's (docs/evals.md, Process measures).")
    if measures.work_source:
        lines.append(f"Work share from {measures.work_source}.")
    reasons = {k: v.reason for k, v in measures.team.items() if isinstance(v, NotAvailable)}
    for values in measures.agents.values():
        reasons |= {k: v.reason for k, v in values.items() if isinstance(v, NotAvailable) and k not in reasons}
    lines += [f"n/a {SHORT[k]}: {reason}" for k, reason in reasons.items()]
    return "\n".join(lines) + "\n"
