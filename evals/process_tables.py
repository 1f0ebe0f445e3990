"""The report's process tables: each team's measures (and each agent's), read from every stored run's trace.

The measures are computed when the report is written, not when the run was, so a store of runs made before the
measures existed reports them too. A cell is the mean over the team's runs with its bootstrap interval, like
every other cell of the report; a measure no run of the team could give is `n/a`, its reason under the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coopgraph.evals.metrics import Stat, stat
from coopgraph.evals.tables import Column, Format, Table
from coopgraph.record.process.measures import MEASURES, NotAvailable, ProcessMeasures, process_measures
from coopgraph.record.process.reading import TIME_UNITS

TEAM_COLUMNS = ("idle", "idle_share", "model_wait_s", "partner_wait", "duplicated", "conflicts", "plan_changes",
                "work_share")
AGENT_COLUMNS = ("idle", "idle_share", "model_wait_s", "duplicated", "conflicts", "plan_changes", "work_share")


def trace_file(row: dict[str, Any], folder: Path) -> Path | None:
    """The row's trace: its stored path, else the same path under the store's folder (a store moved since)."""
    stored = row.get("trace_path")
    if not stored:
        return None
    path = Path(stored)
    if path.is_file():
        return path
    parts = path.parts
    if "traces" in parts:
        moved = folder.joinpath(*parts[parts.index("traces"):])
        if moved.is_file():
            return moved
    return None


def measured_runs(rows: list[dict[str, Any]], folder: Path, cache: dict[Path, ProcessMeasures | None]
                  ) -> list[tuple[dict[str, Any], ProcessMeasures]]:
    """Each row with a readable trace, beside its measures (rows whose trace is gone are left out)."""
    from coopgraph.record.trace_file import read_events

    runs = []
    for row in rows:
        path = trace_file(row, folder)
        if path is None:
            continue
        if path not in cache:
            try:
                cache[path] = process_measures(read_events(path))
            except (OSError, ValueError):
                cache[path] = None
        measures = cache[path]
        if measures is not None:
            runs.append((row, measures))
    return runs


def _cell(runs: list[tuple[dict[str, Any], ProcessMeasures]], key: str) -> Stat | NotAvailable | None:
    """The mean of one flat measure over the runs that have it, or why none has it."""
    rows, reason = [], None
    for row, measures in runs:
        value = measures.flat().get(key)
        if isinstance(value, NotAvailable):
            reason = reason or value
        elif value is not None:
            rows.append({**row, "metrics": {key: value}, key: value})
    if rows:
        return stat(rows, key)
    return reason


def _unit(results_rows: list[dict[str, Any]]) -> str:
    envs = {str(r.get("env")) for r in results_rows}
    units = {TIME_UNITS.get(env, "steps") for env in envs}
    return units.pop() if len(units) == 1 else "world time units"


def _columns(keys: tuple[str, ...], unit: str) -> list[Column]:
    titles = {"idle": f"Idle ({unit} / agent)", "idle_share": "Idle share", "model_wait_s": "Model wait (s / agent)",
              "partner_wait": f"Partner wait ({unit})", "duplicated": f"Duplicated effort ({unit})",
              "conflicts": "Conflicts", "plan_changes": "Messages that changed a plan",
              "work_share": "Largest work share"}
    formats: dict[str, Format] = {"idle_share": "stat_pct", "work_share": "stat_pct"}
    return [Column(k, titles[k], formats.get(k, "stat"), 2 if k == "model_wait_s" else 1) for k in keys]


def _legend(unit: str, reasons: dict[str, str], runs: int, rows: int) -> str:
    text = (f"From each run's trace ({runs} of {rows} stored runs have theirs), per episode, then the mean with its "
            f"95% bootstrap interval over the runs and n (docs/evals.md, Process measures). Time is in the world's "
            f"unit ({unit}); model wait in seconds of wall time.")
    for key, reason in reasons.items():
        text += f" n/a {MEASURES[key].split(' (')[0]}: {reason}."
    return text


def process_tables(results: Any, folder: Path) -> list[Table]:
    """The team table and the per-agent table of one suite (`results` is the report's `SuiteResults`); none when
    no stored run's trace can be read."""
    cache: dict[Path, ProcessMeasures | None] = {}
    all_rows = [r for rows in results.teams.values() for r in rows]
    if not all_rows:
        return []
    unit = _unit(all_rows)
    reasons: dict[str, str] = {}
    team_rows, agent_rows, measured = [], [], 0
    for team, rows in results.teams.items():
        runs = measured_runs(rows, folder, cache)
        measured += len(runs)
        row: dict[str, Any] = {"team": team, "runs": len(runs)}
        for key in TEAM_COLUMNS:
            cell = _cell(runs, f"team.{key}")
            if isinstance(cell, NotAvailable):
                reasons.setdefault(key, cell.reason)
            row[key] = cell
        team_rows.append(row)
        members = rows[0].get("members") or [] if rows else []
        agents = list(dict.fromkeys(a for _, m in runs for a in m.agents))
        for index, agent in enumerate(agents):
            who = f"{agent} ({members[index]})" if index < len(members) else agent
            agent_row: dict[str, Any] = {"team": team, "agent": who}
            for key in AGENT_COLUMNS:
                cell = _cell(runs, f"{agent}.{key}")
                if isinstance(cell, NotAvailable):
                    reasons.setdefault(key, cell.reason)
                agent_row[key] = cell
            agent_rows.append(agent_row)
    if not measured:  # rows stored without their traces (or traces since deleted): nothing to read
        return []
    legend = _legend(unit, reasons, measured, len(all_rows))
    team_columns = [Column("team", "Team", "text"), Column("runs", "Runs", "num", 0), *_columns(TEAM_COLUMNS, unit)]
    agent_columns = [Column("team", "Team", "text"), Column("agent", "Agent", "text"),
                     *_columns(AGENT_COLUMNS, unit)]
    for column in agent_columns:
        column.title = {"idle": f"Idle ({unit})", "model_wait_s": "Model wait (s)", "work_share": "Work share",
                        "plan_changes": "Its messages that changed a plan"}.get(column.key, column.title)
    return [Table("process", f"{results.name}: how the team cooperated — process measures", team_columns, team_rows,
                  legend),
            Table("process-agents", f"{results.name}: process measures per agent", agent_columns, agent_rows,
                  legend)]
