"""The reasoning tables of `coopgraph report`: accuracy per question type, per game and overall, with both scorers
and uniform random guessing beside each, for every model that answered a question file (`coopgraph eval reasoning`).
Each accuracy carries its 95% bootstrap interval over the answers (questions × trials).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.evals.metrics import Stat, interval_of
from coopgraph.evals.reasoning.run import ENV
from coopgraph.evals.reasoning.summary import accuracy_summary
from coopgraph.evals.tables import Column, Table

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults

LEGEND = ("Accuracy: mean over trials of the share of questions answered right, its 95% bootstrap interval over the "
          "answers (questions × trials) and n, the answers (docs/evals.md, Reading a cell); LLM-Co's error bar is "
          "instead std / √trials. *faithful* reads answers as LLM-Co's evaluation does (an answer `D, F` never "
          "accepts F), *fixed* reads them leniently. Chance: what a uniform random pick among each question's "
          "options scores, under the same scorer.")


def is_reasoning(results: SuiteResults) -> bool:
    """Whether the suite's rows are answers to reasoning questions rather than episodes."""
    return any(r.get("env") == ENV for rows in results.teams.values() for r in rows)


def _stat(group: dict[str, Any], rows: list[dict[str, Any]], scorer: str) -> Stat:
    """The group's accuracy as the summary computes it, with the interval of its answers' scores."""
    scores = [float(r["metrics"][scorer]) for r in rows]
    return Stat(group["accuracy"], std=group["std"] if group["trials"] > 1 else None, n=len(scores),
                **interval_of(rows, scores))


def _groups(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The answer rows of each (where, name) group the summary reports: overall, per type, per game."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {("overall", "overall"): rows}
    for row in rows:
        out.setdefault(("types", row["metrics"]["kind"]), []).append(row)
        out.setdefault(("games", row["metrics"]["game"]), []).append(row)
    return out


def accuracy_table(results: SuiteResults) -> Table:
    columns = [Column("team", "LLM", "text"), Column("group", "Questions", "text"), Column("n", "n", "num", 0),
               Column("faithful", "Accuracy (faithful)", "stat_pct"),
               Column("chance_faithful", "Chance (faithful)", "pct"),
               Column("fixed", "Accuracy (fixed)", "stat_pct"), Column("chance_fixed", "Chance (fixed)", "pct")]
    rows = []
    for team, team_rows in results.teams.items():
        faithful, fixed = accuracy_summary(team_rows, "faithful"), accuracy_summary(team_rows, "fixed")
        answers = _groups(team_rows)
        groups = [("overall", "overall"), *((k, "types") for k in faithful["types"]),
                  *((g, "games") for g in faithful["games"])]
        for name, where in groups:
            a = faithful["overall"] if where == "overall" else faithful[where][name]
            b = fixed["overall"] if where == "overall" else fixed[where][name]
            label = name if where != "games" else f"game: {name}"
            here = answers[(where, name)]
            rows.append({"team": team, "group": label, "n": a["questions"], "faithful": _stat(a, here, "faithful"),
                         "chance_faithful": a["chance"], "fixed": _stat(b, here, "fixed"),
                         "chance_fixed": b["chance"]})
    return Table("accuracy", f"{results.name}: accuracy per question type and game, beside chance", columns, rows,
                 LEGEND)
