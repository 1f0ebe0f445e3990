"""The TDW-MAT table of `coopgraph report`, shaped like CoELA's table 1: transport rate on the food episodes, the
stuff episodes and all of them, with EI in parentheses, per team and perception.

EI is CoELA's: per episode, (TR_team - TR_ref) / max(TR_team, TR_ref), averaged over the episodes both ran; the
reference is the suite's one-agent team with the same perception (else the suite's baseline). What CoELA reports
sits in its own column headed "paper (source)", never mixed with ours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.evals.metrics import efficiency_improvement, mean, row_value
from coopgraph.evals.suite import Reference
from coopgraph.evals.tables import Column, Table

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults

LEGEND = ("Ours: mean transport rate (targets at the bed / targets) over the stored runs, per task and in total; "
          "EI in parentheses against the one-agent team with the same perception, averaged per episode as CoELA "
          "does. TR bound: the admissible upper bound of envs/baselines/tdw_oracle.py for the team's size. Columns "
          "headed *paper* are CoELA's numbers (TDW, test split), for orientation only.")


def is_tdw(results: SuiteResults) -> bool:
    """Whether the suite's rows are TDW-MAT episodes (measured by transport rate)."""
    if results.suite is not None:
        return results.suite.environment.name == "tdw-mat"
    return any(r.get("env") == "tdw-mat" for rows in results.teams.values() for r in rows)


def perception(row: dict[str, Any]) -> str:
    return str((row.get("env_options") or {}).get("perception", "oracle"))


def _is_food(row: dict[str, Any]) -> bool:
    return bool(row_value(row, "task_food"))


def _cell(rows: list[dict[str, Any]], reference: list[dict[str, Any]] | None) -> str | None:
    rate = mean(row_value(r, "transport_rate") for r in rows)
    if rate is None:
        return None
    ei = efficiency_improvement(rows, reference, "transport_rate") if reference else None
    return f"{rate:.2f}" + (f" ({ei * 100:.0f}%)" if ei is not None else "")


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
               Column("episodes", "Runs", "num", 0), Column("food", "Food", "text"), Column("stuff", "Stuff", "text"),
               Column("total", "Total", "text"), Column("bound", "TR bound", "num", 2),
               Column("frames", "Frames", "num", 0), Column("paper", "paper: TR % food / stuff / total (EI)", "text")]
    rows = []
    for team, team_rows in results.teams.items():
        reference = _reference_team(results, team)
        ref_rows = results.teams.get(reference) if reference else None
        row: dict[str, Any] = {"team": team, "perception": ", ".join(sorted({perception(r) for r in team_rows})),
                               "episodes": len(team_rows)}
        for key, pick in (("food", True), ("stuff", False)):
            subset = [r for r in team_rows if _is_food(r) == pick]
            ref_subset = [r for r in ref_rows or [] if _is_food(r) == pick]
            row[key] = _cell(subset, ref_subset or None)
        row["total"] = _cell(team_rows, ref_rows)
        row["bound"] = mean(row_value(r, "tr_bound") for r in team_rows)
        row["frames"] = mean(row_value(r, "frames") for r in team_rows)
        row["paper"] = _paper(results.references(team))
        rows.append(row)
    title = f"{results.name}: transport rate (EI) — CoELA table 1 layout"
    return Table("coela-t1", title, columns, rows, LEGEND)
