"""The TDW-MAT table of `coopgraph report`, shaped like CoELA's table 1: transport rate on the food episodes, the
stuff episodes and all of them, each with its EI beside it, per team and perception; every figure with its 95%
interval (the EI's paired, `comparisons.py`).

EI is CoELA's: per episode, (TR_team - TR_ref) / max(TR_team, TR_ref), averaged over the episodes both ran; the
reference is the suite's one-agent team with the same perception (else the suite's baseline). What CoELA reports
sits in its own column headed "paper (source)", never mixed with ours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.evals.comparisons import paired_improvement
from coopgraph.evals.metrics import Stat, row_value, stat
from coopgraph.evals.suite import Reference
from coopgraph.evals.tables import Column, Table

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults

LEGEND = ("Ours: mean transport rate (targets at the bed / targets) over the stored runs, per task and in total, "
          "with its 95% bootstrap interval over episodes × replicates and n (docs/evals.md, Reading a cell); EI "
          "beside each against the one-agent team with the same perception, averaged per episode as CoELA does, its "
          "interval paired over the runs both teams share. TR bound: the admissible upper bound of "
          "envs/tdw_mat/experts/oracle.py for the team's size. Columns headed *paper* are the papers' numbers "
          "(CoELA's, CaPo's or REVECA's, as each column names; ThreeDWorld, test split), for orientation only.")


def is_tdw(results: SuiteResults) -> bool:
    """Whether the suite's rows are TDW-MAT episodes (measured by transport rate)."""
    if results.suite is not None:
        return results.suite.environment.name == "tdw-mat"
    return any(r.get("env") == "tdw-mat" for rows in results.teams.values() for r in rows)


def perception(row: dict[str, Any]) -> str:
    return str((row.get("env_options") or {}).get("perception", "oracle"))


def _is_food(row: dict[str, Any]) -> bool:
    return bool(row_value(row, "task_food"))


def _cells(rows: list[dict[str, Any]], reference: list[dict[str, Any]] | None) -> tuple[Stat | None, Stat | None]:
    """The transport rate of `rows` and its EI against the reference's rows (None when there is nothing)."""
    rate = stat(rows, "transport_rate")
    if rate.mean is None:
        return None, None
    return rate, paired_improvement(rows, reference, "transport_rate") if reference else None


def _reference_team(results: SuiteResults, team: str) -> str | None:
    """The one-agent team whose rows share this team's perception (None for such a team itself)."""
    rows = results.teams[team]
    seen = {perception(r) for r in rows}
    if rows and len(rows[0]["members"]) == 1:
        return None
    for other, other_rows in results.teams.items():
        if other != team and other_rows and len(other_rows[0]["members"]) == 1 \
                and {perception(r) for r in other_rows} == seen:
            return other
    return results.suite.reference_team() if results.suite else None


def _paper(refs: list[Reference]) -> str | None:
    cells = []
    for ref in refs:
        if ref.tr is None:
            continue
        parts = [f"{v:g}" if v is not None else "–" for v in (ref.tr_food, ref.tr_stuff, ref.tr)]
        text = " / ".join(parts) + (f" ({ref.ei * 100:.0f}%)" if ref.ei is not None else "")
        cells.append(f"{ref.source}: {text}" + (f" — {ref.note}" if ref.note else ""))
    return "; ".join(cells) or None


def coela_table(results: SuiteResults) -> Table:
    """Rows: teams; columns: perception, TR food / stuff / total (EI), the bound, frames, then the paper."""
    columns = [Column("team", "Team", "text"), Column("perception", "Perception", "text"),
               Column("episodes", "Runs", "num", 0)]
    for key, title in (("food", "Food"), ("stuff", "Stuff"), ("total", "Total")):
        columns += [Column(key, title, "stat", 2), Column(f"{key}_ei", f"EI {title.lower()}", "stat_signed_pct")]
    columns += [Column("bound", "TR bound", "stat", 2), Column("frames", "Frames", "stat", 0),
                Column("paper", "paper: TR % food / stuff / total (EI)", "text")]
    rows = []
    for team, team_rows in results.teams.items():
        reference = _reference_team(results, team)
        ref_rows = results.teams.get(reference) if reference else None
        row: dict[str, Any] = {"team": team, "perception": ", ".join(sorted({perception(r) for r in team_rows})),
                               "episodes": len(team_rows)}
        for key, pick in (("food", True), ("stuff", False)):
            subset = [r for r in team_rows if _is_food(r) == pick]
            ref_subset = [r for r in ref_rows or [] if _is_food(r) == pick]
            row[key], row[f"{key}_ei"] = _cells(subset, ref_subset or None)
        row["total"], row["total_ei"] = _cells(team_rows, ref_rows)
        row["bound"] = stat(team_rows, "tr_bound")
        row["frames"] = stat(team_rows, "frames")
        row["paper"] = _paper(results.references(team))
        rows.append(row)
    title = f"{results.name}: transport rate (EI) — CoELA table 1 layout"
    return Table("coela-t1", title, columns, rows, LEGEND)
