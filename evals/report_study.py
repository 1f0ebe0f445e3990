"""The user-study table of `coopgraph report`: per partner condition, how the mixed teams did and how the
participants rated their partner, shaped like CoELA's user-study figure (steps to finish, then helpfulness and
trust on a 7-point scale), each a mean with its 95% bootstrap interval over participants' sessions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.evals.metrics import stat
from coopgraph.evals.tables import Column, Table

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults


def is_user_study(results: SuiteResults) -> bool:
    if results.suite is not None:
        return results.suite.kind == "user-study"
    return any(isinstance(r.get("study"), dict) for rows in results.teams.values() for r in rows)


def study_table(results: SuiteResults) -> Table:
    """One row per condition: participants, sessions, success, steps, helpfulness and trust (rated sessions only)."""
    columns = [Column("team", "Partner condition", "text"), Column("participants", "Participants", "num", 0),
               Column("sessions", "Sessions", "num", 0), Column("unfinished", "Left unfinished", "num", 0),
               Column("success", "Success", "stat_pct"), Column("steps", "Steps to finish", "stat"),
               Column("helpfulness", "Helpfulness (1-7)", "stat"), Column("trust", "Trust (1-7)", "stat")]
    rows: list[dict[str, Any]] = []
    for team, team_rows in results.teams.items():
        people = {(r.get("study") or {}).get("participant") for r in team_rows} - {None}
        rows.append({"team": team, "participants": len(people), "sessions": len(team_rows),
                     "unfinished": results.errors.get(team, 0), "success": stat(team_rows, "success"),
                     "steps": stat(team_rows, "steps"), "helpfulness": stat(team_rows, "helpfulness"),
                     "trust": stat(team_rows, "trust")})
    legend = ("Each participant played every condition once, in the order of their row of a balanced Latin square "
              "(evals/user_study.py). Cells: mean, 95% bootstrap interval over sessions and n; ratings count the "
              "sessions whose participant answered (CoELA §5.4 asks how helpful and how trustworthy the partner "
              "was, 1-7). Left unfinished: sessions abandoned or still being played, offered again on the "
              "participant's next `coopgraph play --study`.")
    return Table("user-study", f"{results.name}: people beside agents — CoELA's user-study figure as a table",
                 columns, rows, legend)
