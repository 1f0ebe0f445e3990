"""The Collab Capture and Collab Escape tables of `coopgraph report`: turns to capture, escape rate and turns.

Capture: one row per episode (start), each team a column of mean turns to capture (30 when the thief got away),
then a row per team with its capture rate. Escape: one row per team with the escape rate, the rate of being
caught, mean turns over every game (as the reference averages them) and over escapes only, generators repaired.
LLM-Co's paper reports no agentic numbers for either game (its Collab results are the reasoning questions), so
there is no paper column; the legend says so rather than leaving the comparison to be guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.evals.metrics import stat
from coopgraph.evals.tables import Column, Table

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults

GAMES = ("collab-capture", "collab-escape")
NO_PAPER = ("LLM-Co's paper gives no agentic Capture or Escape numbers (GPT-4 was scored on these games' reasoning "
            "questions only), so there is no paper column.")


def collab_game(results: SuiteResults) -> str | None:
    """Which of the two games the suite's rows are, or None."""
    if results.suite is not None:
        name = results.suite.environment.name
        return name if name in GAMES else None
    return next((r.get("env") for rows in results.teams.values() for r in rows if r.get("env") in GAMES), None)


def capture_tables(results: SuiteResults) -> list[Table]:
    """Turns to capture per start (rows) and team (columns), then each team's capture rate."""
    teams = list(results.teams)
    episodes = list(dict.fromkeys(r["episode"] for rows in results.teams.values() for r in rows))
    if results.suite is not None:
        episodes = results.suite.episode_ids() + [e for e in episodes if e not in results.suite.episode_ids()]
    columns = [Column("episode", "Start", "text")] + [Column(f"team{i}", t, "stat") for i, t in enumerate(teams)]
    rows: list[dict[str, Any]] = []
    for episode in episodes:
        row: dict[str, Any] = {"episode": episode}
        for i, team in enumerate(teams):
            here = [r for r in results.teams[team] if r["episode"] == episode]
            row[f"team{i}"] = stat(here, "turns_to_capture") if here else None
        rows.append(row)
    per_start = Table("capture", f"{results.name}: turns to capture per start", columns, rows,
                      "Mean turns to capture over seeds × repeats (30, the horizon, when the thief got away), "
                      "with its 95% bootstrap interval and n (docs/evals.md); fewer is better. test/0 is the "
                      "reference's start. " + NO_PAPER)
    return [per_start, _team_table(results, "capture-teams", "capture rate and turns",
                                   [("success", "Capture rate", 2), ("turns_to_capture", "Turns to capture", 1)])]


def escape_tables(results: SuiteResults) -> list[Table]:
    """Per team: escape rate, caught rate, mean turns (all games, escapes only), generators repaired."""
    escaped_only = {team: [r for r in rows if (r.get("metrics") or {}).get("escaped")]
                    for team, rows in results.teams.items()}
    table = _team_table(results, "escape", "escape rate and turns",
                        [("escaped", "Escape rate", 2), ("caught", "Caught rate", 2), ("turns", "Turns", 1),
                         ("generators_repaired", "Generators repaired", 1)])
    table.columns.insert(5, Column("turns_escaped", "Turns (escapes)", "stat"))
    for row in table.rows:
        row["turns_escaped"] = stat(escaped_only[row["team"]], "turns")
    table.legend = ("Over every game of the team (episodes = seeds of the killer's wandering): means with their 95% "
                    "bootstrap intervals and n (docs/evals.md). Turns: mean over "
                    "all games, as the reference averages them; Turns (escapes): over the escapes only. Neither "
                    "escaped nor caught: the suite's turn cap ended the game. " + NO_PAPER)
    return [table]


def _team_table(results: SuiteResults, name: str, title: str, metrics: list[tuple[str, str, int]]) -> Table:
    columns = [Column("team", "Team", "text"), Column("games", "Games", "num", 0)]
    columns += [Column(key, heading, "stat", digits) for key, heading, digits in metrics]
    columns.append(Column("invalid_answers", "Invalid answers", "stat"))
    rows = []
    for team, team_rows in results.teams.items():
        row: dict[str, Any] = {"team": team, "games": len(team_rows),
                               "invalid_answers": stat(team_rows, "invalid_answers")}
        row.update({key: stat(team_rows, key) for key, _, _ in metrics})
        rows.append(row)
    return Table(name, f"{results.name}: {title}", columns, rows,
                 "Per game, both players together: means with their 95% bootstrap intervals over the games and n "
                 "(docs/evals.md). Invalid answers: replies whose action was not in the list "
                 "(the player waits that turn). " + NO_PAPER)


def collab_tables(results: SuiteResults) -> list[Table]:
    """The tables of whichever Collab game the suite plays."""
    return capture_tables(results) if collab_game(results) == "collab-capture" else escape_tables(results)
