"""The TDW-MAT table of `coopgraph report`, shaped like CaPo's table 1 (and CoELA's): transport rate per team on the
food tasks, the stuff tasks and in total, with the efficiency improvement against the suite's reference team.

TDW-MAT scores what fraction of the targets reaches the bed in 3000 frames, not steps to success, so the C-WAH
efficiency tables do not apply. What the papers report sits in a column of its own headed "paper", never mixed
with ours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.evals.metrics import row_value, stat
from coopgraph.evals.suite import Reference
from coopgraph.evals.tables import Column, Table

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults

LEGEND = ("Ours: mean transport rate over the stored runs (targets at the bed / targets, 3000 frames); `± x` is the "
          "std over seeds × repeats, `[a–b]` the range over episodes when there is one replicate. EI = (TR − TR_ref) "
          "/ max(TR, TR_ref) per episode, averaged (CoELA §5.1). Columns headed *paper* are the numbers the papers "
          "report (ThreeDWorld, their LLMs, CoELA's test split), shown for orientation only — they are not ours.")


def is_tdw_mat(results: SuiteResults) -> bool:
    """Whether the suite's rows are TDW-MAT episodes (scored by transport rate)."""
    if results.suite is not None:
        return results.suite.environment.name == "tdw-mat"
    return any(r.get("env") == "tdw-mat" for rows in results.teams.values() for r in rows)


def transport_ei(team_rows: list[dict[str, Any]], reference_rows: list[dict[str, Any]]) -> float | None:
    """CoELA's EI for a higher-is-better measure: per shared episode (TR − TR_ref) / max(TR, TR_ref), averaged."""
    def by_episode(rows: list[dict[str, Any]]) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for row in rows:
            if (value := row_value(row, "transport_rate")) is not None:
                out.setdefault(row["episode"], []).append(value)
        return out

    team, reference = by_episode(team_rows), by_episode(reference_rows)
    gains = []
    for episode in sorted(set(team) & set(reference)):
        mine, theirs = sum(team[episode]) / len(team[episode]), sum(reference[episode]) / len(reference[episode])
        top = max(mine, theirs)
        gains.append((mine - theirs) / top if top else 0.0)
    return sum(gains) / len(gains) if gains else None


def _paper(refs: list[Reference]) -> str | None:
    cells = []
    for ref in refs:
        rates = [ref.tr_food, ref.tr_stuff, ref.tr]
        if all(r is None for r in rates):
            continue
        text = " / ".join("–" if r is None else f"{r:g}" for r in rates)
        if ref.ei is not None:
            text += f" (EI {ref.ei * 100:.0f}%)"
        cells.append(f"{ref.source}: {text}" + (f" — {ref.note}" if ref.note else ""))
    return "; ".join(cells) or None


def transport_table(results: SuiteResults) -> Table:
    """Rows: teams; columns: food, stuff and total transport rate (%), EI against the reference team, the papers'."""
    reference = results.suite.reference_team() if results.suite else None
    reference_rows = results.teams.get(reference or "", [])
    perception = (results.suite.environment.options.get("perception", "oracle") if results.suite else
                  next((r.get("env_options", {}).get("perception", "oracle")
                        for rows in results.teams.values() for r in rows), "oracle"))
    columns = [Column("team", "Team", "text"), Column("episodes", "Episodes", "num", 0),
               Column("food", "Food TR ↑", "stat_pct"), Column("stuff", "Stuff TR ↑", "stat_pct"),
               Column("total", "Total TR ↑", "stat_pct"), Column("ei", f"EI vs {reference or '–'}", "signed_pct"),
               Column("frames", "Frames", "stat", 0), Column("messages", "Message frames", "stat")]
    rows = []
    for team, team_rows in results.teams.items():
        food = [r for r in team_rows if row_value(r, "task_food") == 1.0]
        stuff = [r for r in team_rows if row_value(r, "task_food") == 0.0]
        ei = transport_ei(team_rows, reference_rows) if reference_rows and team != reference else None
        rows.append({"team": team, "episodes": len(team_rows), "food": stat(food, "transport_rate"),
                     "stuff": stat(stuff, "transport_rate"), "total": stat(team_rows, "transport_rate"),
                     "ei": ei, "frames": stat(team_rows, "frames"),
                     "messages": stat(team_rows, "communication_steps"), "paper": _paper(results.references(team))})
    if any(row["paper"] for row in rows):
        columns.append(Column("paper", "paper: Food / Stuff / Total TR % (EI)", "text"))
    setting = "with oracle perception" if perception == "oracle" else "without oracle perception (detector)"
    title = f"{results.name}: transport rate {setting} — CaPo table 1 layout"
    return Table("transport", title, columns, rows, LEGEND)
