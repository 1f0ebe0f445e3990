"""The Overcooked tables of `coopgraph report`, shaped like LLM-Co's: score per layout (table 1 for the five
classic layouts, tables 3-4 for the gated Overcooked-Assist ones), soups per agent, and who served on each layout.

Rows are layouts and each of our teams is a column (mean score over seeds × repeats, 20 points per soup); what the
paper reports sits in columns of its own headed "paper: <who> (<table>)", the suite's literature rows (PPO_SP, PBT)
and the numbers a team's references give (LLM-Co with GPT-4), never mixed with ours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.evals.metrics import stat
from coopgraph.evals.suite import Reference
from coopgraph.evals.tables import Column, Table

if TYPE_CHECKING:
    from coopgraph.evals.report import SuiteResults

#: The paper's Overcooked-Assist layouts (tables 3-4): Gated Delivery and Locked.
ASSIST = {"no_counter_door": "Gated Delivery", "soup_passing_door": "Locked"}
#: The paper's names of the five classic layouts (tables 1-2).
CLASSIC = {"cramped_room": "Cramped", "asymmetric_advantages": "Asymm", "coordination_ring": "Ring",
           "forced_coordination": "Forced", "counter_circuit_o_1order": "Counter"}
LEGEND = ("Ours: mean score over the stored runs (20 points per soup served in 400 ticks), its 95% bootstrap "
          "interval over the runs (seeds × repeats) and n (docs/evals.md, Reading a cell); `deterministic`: the "
          "runs said their replicates are copies, so they count once per seed (one seed: no interval). Columns "
          "headed *paper* are the numbers "
          "LLM-Co reports (GPT-4; PPO/PBT self-play: mean of 100 runs ± std over 5 seeds), for orientation only. "
          "Our partner is the scripted greedy cook, not the paper's RL or BC agents.")


def is_overcooked(results: SuiteResults) -> bool:
    """Whether the suite's rows are Overcooked episodes (scored in points, not solved in steps)."""
    if results.suite is not None:
        return results.suite.environment.name == "overcooked"
    return any(r.get("env") == "overcooked" for rows in results.teams.values() for r in rows)


def _references(results: SuiteResults) -> list[tuple[str, Reference]]:
    """(column title, reference) for every score the suite or its teams carry, in the order written."""
    if results.suite is None:
        return []
    refs = list(results.suite_references())
    for team in results.suite.teams:  # a team not run yet still shows what the paper reports for it
        refs += [r.model_copy(update={"label": r.label or team.label}) for r in results.references(team.label)]
    return [(f"paper: {r.label} ({r.source})", r) for r in refs if r.score is not None and r.episode]


def _layout_name(episode: str) -> str:
    paper = ASSIST.get(episode) or CLASSIC.get(episode)
    return f"{episode} ({paper})" if paper else episode


def score_table(results: SuiteResults, episodes: list[str], name: str, title: str) -> Table:
    """Rows: `episodes`; columns: each team's mean score there, then the paper's numbers for them."""
    teams = list(results.teams)
    columns = [Column("layout", "Layout", "text")]
    columns += [Column(f"team{i}", team, "stat", 0) for i, team in enumerate(teams)]
    papers: dict[str, dict[str, str]] = {}
    for column, ref in _references(results):
        if ref.episode in episodes:
            papers.setdefault(column, {})[ref.episode or ""] = f"{ref.score:g}" + (f" {ref.note}" if ref.note else "")
    columns += [Column(f"paper{i}", column, "text") for i, column in enumerate(papers)]
    rows: list[dict[str, Any]] = []
    for episode in episodes:
        row: dict[str, Any] = {"layout": _layout_name(episode)}
        for i, team in enumerate(teams):
            on_layout = [r for r in results.teams[team] if r["episode"] == episode]
            row[f"team{i}"] = stat(on_layout, "score") if on_layout else None
        for i, cells in enumerate(papers.values()):
            row[f"paper{i}"] = cells.get(episode)
        rows.append(row)
    return Table(name, title, columns, rows, LEGEND)


def served(row: dict[str, Any]) -> list[float]:
    """Soups each cook delivered itself in one run, in the layout's player order: the result's
    `deliveries_by_agent`, or for a row stored before it existed, each agent's `per_agent` deliveries."""
    by_agent = (row.get("metrics") or {}).get("deliveries_by_agent")
    if isinstance(by_agent, dict) and by_agent:
        return [float(n) for n in by_agent.values()]
    per = row.get("per_agent") or {}
    return [float((per.get(agent) or {}).get("deliveries") or 0.0) for agent in sorted(per)]


def _split(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with `first` and `second`: the soups agent 1 and agent 2 served."""
    split = []
    for row in rows:
        shares = served(row)
        split.append({**row, "first": shares[0] if shares else None, "second": shares[1] if len(shares) > 1 else None})
    return split


def soups_table(results: SuiteResults) -> Table:
    """Per team: score and soups over all its runs, and how the soups split between the two cooks."""
    columns = [Column("team", "Team", "text"), Column("episodes", "Runs", "num", 0),
               Column("score", "Score", "stat", 0), Column("deliveries", "Soups", "stat"),
               Column("first", "Soups by agent 1", "stat"), Column("second", "Soups by agent 2", "stat"),
               Column("invalid_answers", "Invalid answers", "stat")]
    rows = []
    for team, team_rows in results.teams.items():
        split = _split(team_rows)
        rows.append({"team": team, "episodes": len(team_rows), "score": stat(team_rows, "score"),
                     "deliveries": stat(team_rows, "deliveries"), "first": stat(split, "first"),
                     "second": stat(split, "second"), "invalid_answers": stat(team_rows, "invalid_answers")})
    return Table("soups", f"{results.name}: score and soups per agent", columns, rows,
                 "Per run of 400 ticks. Agent 1 is Alice (the layout's player 1), agent 2 Bob (the one LLM-Co's "
                 "stalemate rule moves aside). Invalid answers: replies whose action was not in the list (LLM-Co "
                 "waits that tick).")


def served_table(results: SuiteResults, episodes: list[str]) -> Table:
    """Per layout and team: who served. A planner beside a scripted cook can score while the cook does all the
    serving, so each cook's own soups stand beside the team's score."""
    columns = [Column("layout", "Layout", "text"), Column("team", "Team", "text"),
               Column("cooks", "Agent 1 / agent 2", "text"), Column("score", "Score", "stat", 0),
               Column("first", "Soups by agent 1", "stat"), Column("second", "Soups by agent 2", "stat")]
    rows = []
    for episode in episodes:
        for team, team_rows in results.teams.items():
            on_layout = [r for r in team_rows if r["episode"] == episode]
            if not on_layout:
                continue
            split = _split(on_layout)
            rows.append({"layout": _layout_name(episode), "team": team,
                         "cooks": " / ".join(on_layout[0].get("members") or []), "score": stat(on_layout, "score"),
                         "first": stat(split, "first"), "second": stat(split, "second")})
    return Table("served", f"{results.name}: who served, per layout", columns, rows,
                 "Soups each cook delivered itself (the result's deliveries_by_agent), mean over the runs with its "
                 "95% bootstrap interval and n, like the score. Agent 1 is Alice, agent 2 Bob; the third column "
                 "names the member that played each.")


def overcooked_tables(results: SuiteResults) -> list[Table]:
    """LLM-Co's table 1 over the classic (and any other) layouts, tables 3-4 over the gated ones, soups per agent
    and who served on each layout."""
    episodes = list(dict.fromkeys(r["episode"] for rows in results.teams.values() for r in rows))
    if results.suite is not None:
        episodes = results.suite.episode_ids() + [e for e in episodes if e not in results.suite.episode_ids()]
    tables = []
    classic = [e for e in episodes if e not in ASSIST]
    assist = [e for e in episodes if e in ASSIST]
    if classic:
        tables.append(score_table(results, classic, "llmco-t1",
                                  f"{results.name}: score per layout — LLM-Co table 1 layout"))
    if assist:
        tables.append(score_table(results, assist, "llmco-t34",
                                  f"{results.name}: Overcooked-Assist layouts — LLM-Co tables 3 and 4 layout"))
    tables.append(soups_table(results))
    tables.append(served_table(results, episodes))
    return tables
