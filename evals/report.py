"""`coopgraph report DIR`: the papers' tables and plots from a result store.

Per suite: an efficiency table shaped like CoELA table 2 (team → average steps and EI), a REVECA tables
1/3/4 shape (SS, TD, CS, CC, success) for every team, a CaPo table 3 shape for ablation suites, CaPo's
tables 8-9 statistics for teams that discussed meta-plans, and a cost table; an Overcooked suite gets LLM-Co's
tables 1 and 3-4 (score per layout) and soups per agent instead (`report_overcooked.py`), a TDW-MAT suite
CoELA's and CaPo's table 1 (transport rate food / stuff / total with EI, `report_tdw.py`) with the meta-plan and
cost tables, a Collab Capture or Escape suite turns to capture or escape rate and turns (`report_collab.py`). The
numbers the papers report sit in their own column headed "paper (SOURCE)", so nobody mistakes them for ours.
Every suite of episodes then gets how its teams cooperated: process measures per team and per agent, read from
the runs' traces when the report is written (`process_tables.py`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coopgraph.evals.comparisons import paired_delta
from coopgraph.evals.metrics import TeamSummary, summarize
from coopgraph.evals.references import refusal
from coopgraph.evals.store import existing_store
from coopgraph.evals.suite import Reference, Suite, SuiteInvalid, parse_suite
from coopgraph.evals.tables import Column, Table

LEGEND = (
    "Ours: mean over the stored episode runs, then its 95% bootstrap interval over episodes × replicates and n, the "
    "runs it is over (docs/evals.md, Reading a cell); `(n=1)` alone: one run, nothing to resample; `deterministic`: "
    "every run said its replicates are copies, so they count once per episode and seed. Δ and EI intervals are "
    "paired over the runs both teams share. Columns headed *paper* are numbers the papers report (their "
    "simulator, LLMs and episodes), shown for orientation only — they are not our results."
)


@dataclass
class SuiteResults:
    """The current rows of one suite, grouped by team in the suite's order."""

    name: str
    suite: Suite | None
    teams: dict[str, list[dict[str, Any]]]
    errors: dict[str, int]
    stale: int = 0
    summaries: dict[str, TeamSummary] = field(default_factory=dict)
    admitted: dict[str, list[Reference]] = field(default_factory=dict)  # team label ("" for the suite) → refs
    refused: list[str] = field(default_factory=list)  # why a paper number was left out, one line each
    failures: dict[str, list[str]] = field(default_factory=dict)  # team label → `episode (seed N): why` per failed run

    def references(self, team: str) -> list[Reference]:
        """The paper numbers that may stand beside this team's runs (same world and split)."""
        return self.admitted.get(team, [])

    def suite_references(self) -> list[Reference]:
        """The suite-level paper numbers (agents it does not run) that fit its runs."""
        return self.admitted.get("", [])

    def admit_references(self) -> None:
        """Sort the suite's references into those its stored runs allow and those they refuse (another world or
        split: a store written by an older or edited suite), so no table prints a number from other data."""
        if self.suite is None:
            return
        every_row = [r for rows in self.teams.values() for r in rows]
        owners = [("", self.suite.references, every_row)]
        owners += [(t.label, t.references, self.teams.get(t.label, [])) for t in self.suite.teams]
        for label, refs, rows in owners:
            kept = []
            for ref in refs:
                reason = refusal(ref, rows)
                if reason is None:
                    kept.append(ref)
                else:
                    self.refused.append(f"{label or 'suite'}: {reason}")
            self.admitted[label] = kept

    def description(self, team: str) -> str:
        if self.suite is None:
            return ""
        return next((t.description for t in self.suite.teams if t.label == team), "")


def current_rows(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Rows of the team's latest configuration (the config hash of its most recently finished run)."""
    if not rows:
        return [], 0
    latest = max(rows, key=lambda r: r.get("finished_at") or 0)["config_hash"]
    keep = [r for r in rows if r["config_hash"] == latest]
    return keep, len(rows) - len(keep)


def in_job_order(rows: list[dict[str, Any]], suite: Suite | None) -> list[dict[str, Any]]:
    """Rows in the order a sequential run stores them (episodes, seeds and repeats as the suite lists them), so a
    report (its intervals resample rows in order) does not depend on the order concurrent episodes finished in;
    rows the suite does not list keep their stored order, after the others."""
    if suite is None:
        return rows
    position = {(episode, seed, repeat): index for index, (episode, seed, repeat) in enumerate(
        (e, s, r) for e in suite.episode_ids() for s in suite.seeds for r in range(suite.repeats))}
    return sorted(rows, key=lambda r: position.get((r["episode"], r["seed"], r["repeat"]), len(position)))


def collect(folder: str | Path) -> list[SuiteResults]:
    """Each suite's current rows by team; an episode played partly without its model reads as a failed run
    (`unanswered.as_read`), whether or not a run has marked it yet."""
    from coopgraph.evals.unanswered import as_read

    with existing_store(folder) as store:
        rows = [as_read(row) for row in store.rows(status=None)]
        texts = store.suite_texts()
    names = list(dict.fromkeys([*texts, *(r["suite"] for r in rows)]))
    results = []
    for name in names:
        suite = None
        if name in texts:
            try:
                suite = parse_suite(texts[name], f"{name} (stored copy)", check_references=False)
            except SuiteInvalid:
                suite = None
        suite_rows = in_job_order([r for r in rows if r["suite"] == name], suite)
        order = [t.label for t in suite.teams] if suite else []
        order += [r["team"] for r in suite_rows if r["team"] not in order]
        teams: dict[str, list[dict[str, Any]]] = {}
        errors: dict[str, int] = {}
        failures: dict[str, list[str]] = {}
        stale = 0
        for label in order:
            done = [r for r in suite_rows if r["team"] == label and r["status"] == "done"]
            current, dropped = current_rows(done)
            stale += dropped
            hashes = {r["config_hash"] for r in current}
            failed = [r for r in suite_rows if r["team"] == label and r["status"] != "done"
                      and (not hashes or r["config_hash"] in hashes)]
            if current or failed:
                teams[label], errors[label] = current, len(failed)
                failures[label] = [_failure_text(r) for r in failed]
        result = SuiteResults(name, suite, teams, errors, stale)
        result.failures = failures
        result.admit_references()
        reference = suite.reference_team() if suite else None
        for label, team_rows in teams.items():
            ref_rows = teams.get(reference) if reference and label != reference else None
            result.summaries[label] = summarize(name, label, team_rows, errors[label], ref_rows)
        results.append(result)
    return results


def _failure_text(row: dict[str, Any]) -> str:
    """`test/3 (seed 0): its first line of error`, so a report says why a run is missing, not only how many."""
    why = str(row.get("error") or row.get("status") or "failed").strip().splitlines()
    return f"{row['episode']} (seed {row['seed']}): {why[0] if why else 'failed'}"


def _paper_cell(refs: list[Reference], fields: tuple[str, ...], many_sources: bool) -> str | None:
    cells = []
    for ref in refs:
        present = [f for f in fields if getattr(ref, f) is not None]
        if not present:
            continue
        text = " / ".join(_ref_value(ref, f) for f in present)
        if "steps" in present and ref.ei is not None and "ei" not in present:
            text += f" (↑{ref.ei * 100:.0f}%)"
        if ref.note:
            text += f" — {ref.note}"
        cells.append(f"{ref.source}: {text}" if many_sources else text)
    return "; ".join(cells) or None


def _ref_value(ref: Reference, name: str) -> str:
    value = getattr(ref, name)
    if name in ("ei", "success"):
        return f"{name.upper()} {value * 100:.0f}%"
    if name == "tr":
        return f"TR {value:g}%"
    return f"{value:g}" if name in ("steps",) else f"{name.upper()} {value:g}"


def _paper_column(results: SuiteResults, fields: tuple[str, ...], label: str) -> tuple[Column | None, dict[str, Any]]:
    sources = {ref.source for team in results.teams for ref in results.references(team)
               if any(getattr(ref, f) is not None for f in fields)}
    if not sources:
        return None, {}
    many = len(sources) > 1
    title = f"paper{label} ({', '.join(sorted(sources))})" if not many else f"paper{label}"
    cells = {team: _paper_cell(results.references(team), fields, many) for team in results.teams}
    return Column("paper", title, "text"), cells


def efficiency_table(results: SuiteResults) -> Table:
    reference = results.suite.reference_team() if results.suite else None
    columns = [Column("team", "Team", "text"), Column("episodes", "Episodes", "num", 0),
               Column("success", "Success", "stat_pct"), Column("steps", "Average steps L", "stat"),
               Column("ei", f"EI vs {reference or '–'}", "stat_signed_pct"),
               Column("steps_over_bound", "Steps / oracle bound", "stat", 2)]
    paper, cells = _paper_column(results, ("steps",), "")
    rows = []
    for team, s in results.summaries.items():
        rows.append({"team": team, "episodes": s.episodes, "success": s.stats["success"], "steps": s.stats["steps"],
                     "ei": s.ei_stat, "steps_over_bound": s.stats["steps_over_bound"], "paper": cells.get(team)})
    title = f"{results.name}: average steps (Efficiency Improvement) — CoELA table 2 layout"
    return Table("efficiency", title, columns + ([paper] if paper else []), rows,
                 LEGEND + " EI = (M_ref − M) / max(M_ref, M) per episode, averaged (CoELA §5.1).")


def reveca_table(results: SuiteResults) -> Table:
    columns = [Column("team", "Team", "text"), Column("ss", "SS ↓", "stat"), Column("td", "TD (m) ↓", "stat"),
               Column("cs", "CS ↓", "stat"), Column("cc", "CC ↓", "stat"), Column("success", "Success ↑", "stat_pct")]
    paper, cells = _paper_column(results, ("ss", "td", "cs", "cc"), " SS / TD / CS / CC")
    rows = []
    for team, s in results.summaries.items():
        rows.append({"team": team, "ss": s.stats["steps"], "td": s.stats["travel_distance_per_agent"],
                     "cs": s.stats["communication_steps"], "cc": s.stats["characters_per_message"],
                     "success": s.stats["success"], "paper": cells.get(team)})
    title = f"{results.name}: SS, TD, CS, CC — REVECA tables 1/3/4 layout"
    legend = LEGEND + (" SS = steps, TD = travel distance per agent, CS = messages sent, CC = characters per "
                       "message (REVECA §5.2).")
    return Table("reveca", title, columns + ([paper] if paper else []), rows, legend)


def ablation_table(results: SuiteResults) -> Table:
    reference = results.suite.reference_team() if results.suite else None
    ref_rows = results.teams.get(reference) if reference else None
    columns = [Column("team", "Variant", "text"), Column("description", "What changes", "text"),
               Column("success", "Success", "stat_pct"), Column("steps", "Average steps", "stat"),
               Column("delta", f"Δ steps vs {reference or '–'}", "stat"), Column("cs", "CS", "stat"),
               Column("prompt_tokens", "Prompt tokens", "stat", 0)]
    paper, cells = _paper_column(results, ("steps", "ss", "tr", "success"), "")
    rows = []
    for team, s in results.summaries.items():
        delta = paired_delta(results.teams[team], ref_rows, "steps") if ref_rows else None
        rows.append({"team": team, "description": results.description(team), "success": s.stats["success"],
                     "steps": s.stats["steps"], "delta": delta,
                     "cs": s.stats["communication_steps"], "prompt_tokens": s.stats["prompt_tokens"],
                     "paper": cells.get(team)})
    title = f"{results.name}: ablations — CaPo table 3 layout"
    legend = LEGEND + (" A paper column appears only for numbers from this suite's world and split (CaPo's tables 3 "
                       "and 8 are TDW-MAT transport rates: the `capo-ablations` suite).")
    return Table("ablation", title, columns + ([paper] if paper else []), rows, legend)


def capo_table(results: SuiteResults) -> Table | None:
    """CaPo tables 8 and 9 for the teams whose episodes discussed a meta-plan (None when no team did)."""
    teams = {team: s for team, s in results.summaries.items() if s.has_capo}
    if not teams:
        return None
    columns = [Column("team", "Team", "text"), Column("rounds", "Round budget", "num", 0),
               Column("failure", "No consensus (t.8)", "stat_pct"),
               Column("plans", "Meta-plans / task (t.9)", "stat"),
               Column("chars", "Characters / meta-plan (t.9)", "stat", 0),
               Column("steps", "Message steps / task (t.9)", "stat"),
               Column("rounds_used", "Rounds / discussion (t.9)", "stat", 2),
               Column("discussions", "Discussions", "stat"), Column("kept", "Plans kept (A.6 a)", "stat")]
    rows = []
    for team, s in teams.items():
        rows.append({"team": team, "rounds": _round_budget(s.members), "failure": s.stats["capo_failure_rate"],
                     "plans": s.stats["capo_meta_plans"], "chars": s.stats["capo_chars_per_meta_plan"],
                     "steps": s.stats["capo_message_steps"], "rounds_used": s.stats["capo_rounds_per_discussion"],
                     "discussions": s.stats["capo_discussions"], "kept": s.stats["capo_plans_kept"]})
    legend = LEGEND + (" No consensus = share of settled discussions that ended with the round budget spent (or an "
                       "unchanged refinement), pooled over the team's episodes. Paper, TDW-MAT: "
                       "t.8 79.1 / 53.5 / 21.1 / 17.8 / 15.5% for budgets 1-5; t.9 (oracle perception, food / stuff) "
                       "14 / 17 "
                       "meta-plan updates per task, 1,757 / 1,462 characters per meta-plan, 56 / 51 frames, "
                       "2.4 / 2.1 rounds per discussion. C-WAH counts a step per message where TDW counts a "
                       "frame per 500 characters.")
    return Table("capo", f"{results.name}: meta-plan discussions — CaPo tables 8 and 9 layout", columns, rows, legend)


def _round_budget(members: list[str]) -> int | None:
    """The discussion budget of the team's CaPo members (their specs' `rounds`), when they agree on one."""
    from coopgraph.graphs.loader import load_spec

    budgets = set()
    for name in members:
        try:
            nodes = load_spec(name).spec.nodes
        except Exception:  # noqa: BLE001 - a baseline or a spec no longer shipped: no budget to show
            continue
        discuss = next((n for n in nodes.values() if n is not None and n.use == "metaplan.discuss"), None)
        if discuss is not None:
            budgets.add(discuss.params.get("rounds", 3))
    return next(iter(budgets)) if len(budgets) == 1 else None


def cost_table(results: SuiteResults) -> Table:
    columns = [Column("team", "Team", "text"), Column("llm_calls", "LLM calls", "stat"),
               Column("prompt_tokens", "Prompt tokens", "stat", 0),
               Column("completion_tokens", "Completion tokens", "stat", 0),
               Column("per_decision", "Prompt tokens / decision", "stat", 0),
               Column("invalid_answers", "Invalid answers", "stat"), Column("wall", "Wall time (s)", "stat", 2),
               Column("errors", "Failed runs", "num", 0)]
    rows = []
    for team, s in results.summaries.items():
        rows.append({"team": team, "llm_calls": s.stats["llm_calls"], "prompt_tokens": s.stats["prompt_tokens"],
                     "completion_tokens": s.stats["completion_tokens"],
                     "per_decision": s.stats["prompt_tokens_per_decision"],
                     "invalid_answers": s.stats["invalid_answers"], "wall": s.stats["wall_time_s"], "errors": s.errors})
    legend = ("Per episode, all agents together: means with their 95% bootstrap intervals over the runs and n "
              "(docs/evals.md). A decision is one high-level plan chosen (a `plan` event).")
    failed = [f"{team}: {text}" for team, texts in results.failures.items() for text in texts]
    if failed:
        legend += " Failed runs, not counted above (a rerun of the suite plays them again): " + "; ".join(failed) + "."
    unanswered = _unanswered_episodes(results)
    if any(unanswered.values()):  # only then: a column of zeros on every healthy report would say nothing
        columns.append(Column("unanswered", "Episodes with questions the model never answered", "text"))
        for row in rows:
            row["unanswered"] = "; ".join(unanswered[str(row["team"])]) or "none"
        legend += (" Some counted episodes were played partly without their model (its server stopped answering, "
                   "or its calls failed), counted because the run was asked to (`coopgraph eval "
                   "--count-unanswered`) or because they are a participant's session, which cannot be played again: "
                   "their nodes took fallbacks, so those episodes' figures do not measure the model.")
    return Table("cost", f"{results.name}: cost per episode", columns, rows, legend)


def _unanswered_episodes(results: SuiteResults) -> dict[str, list[str]]:
    """Per team, its counted episodes that asked questions without a model answer (`evals/unanswered.py`): only
    those a run was asked to count, since the others read as failed runs."""
    from coopgraph.evals.unanswered import unanswered

    found: dict[str, list[str]] = {}
    for team, rows in results.teams.items():
        found[team] = [f"{row['episode']} (seed {row['seed']}): {gap.text}" for row in rows
                       if (gap := unanswered(row)) is not None]
    return found


def suite_tables(results: SuiteResults) -> list[Table]:
    from coopgraph.evals.report_collab import collab_game, collab_tables
    from coopgraph.evals.report_overcooked import is_overcooked, overcooked_tables
    from coopgraph.evals.report_reasoning import accuracy_table, is_reasoning
    from coopgraph.evals.report_study import is_user_study, study_table
    from coopgraph.evals.report_tdw import coela_table, is_tdw

    if is_user_study(results):  # people beside agents: steps and the participants' ratings per partner condition
        return [study_table(results), cost_table(results)]
    if is_reasoning(results):  # answers to questions, not episodes: accuracy beside chance, then what it cost
        return [accuracy_table(results), cost_table(results)]
    if is_overcooked(results):  # scored in points over a fixed horizon: LLM-Co's tables, not steps to success
        return [*overcooked_tables(results), cost_table(results)]
    if is_tdw(results):  # measured by transport rate in 3000 frames: CoELA's and CaPo's table 1
        capo = capo_table(results)
        return [coela_table(results), *([capo] if capo is not None else []), cost_table(results)]
    if collab_game(results) is not None:  # turns to capture, escape rate: LLM-Co's measures, not CoELA's
        return [*collab_tables(results), cost_table(results)]
    tables = [efficiency_table(results), reveca_table(results)]
    if results.suite is not None and results.suite.kind == "ablation":
        tables.append(ablation_table(results))
    capo = capo_table(results)
    if capo is not None:
        tables.append(capo)
    tables.append(cost_table(results))
    return tables


def process_tables_of(results: SuiteResults, folder: Path) -> list[Table]:
    """How each team cooperated (`process_tables.py`), for suites of episodes (reasoning questions have none)."""
    from coopgraph.evals.process_tables import process_tables
    from coopgraph.evals.report_reasoning import is_reasoning

    return [] if is_reasoning(results) else process_tables(results, folder)


def planner_table(folder: Path) -> Table | None:
    """Decision quality per planner, from the agreement bench's `--save FOLDER/planners/*.json` summaries."""
    summaries = []
    for path in sorted((folder / "planners").glob("*.json")):
        try:
            summaries.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    if not summaries:
        return None
    columns = [Column("label", "Planner", "text"), Column("decisions", "Decisions", "num", 0),
               Column("agree_mhp", "Agrees with MHP", "pct"), Column("agree_oracle", "Agrees with oracle", "pct"),
               Column("agree_kind_mhp", "MHP's kind of action", "pct"),
               Column("answer_is_first", "Answers first option", "pct"), Column("invalid", "Invalid", "pct"),
               Column("random_mhp", "Random vs MHP", "pct"), Column("median_latency_s", "Median latency (s)", "num", 2),
               Column("mean_prompt_tokens", "Prompt tokens / call", "num", 0)]
    return Table("planners", "Planner quality on held-out decision points", columns, summaries,
                 "From `evals/bench/decision_agreement.py --save`: each planner chooses on expert decision points "
                 "(docs/decisions.md); episode steps for teams on these planners are in the tables above.")


def write_report(folder: str | Path, out: str | Path | None = None) -> dict[str, Any]:
    """Write report.md, one CSV per table and the plots; return per-team summaries and the files."""
    from coopgraph.evals import plots
    from coopgraph.evals.report_reasoning import is_reasoning

    folder = Path(folder)
    out_dir = Path(out) if out else folder / "report"
    out_dir.mkdir(parents=True, exist_ok=True)
    results = collect(folder)
    files: list[str] = []
    sections = ["# Evaluation report", "", f"Result store: `{folder}`", ""]
    all_rows = []
    tables: list[dict[str, Any]] = []
    for result in results:
        sections += [f"## {result.name}", ""]
        if result.suite is not None and result.suite.description:
            sections += [result.suite.description.strip(), ""]
        if result.stale:
            sections += [f"({result.stale} rows from earlier configurations of these teams are ignored.)", ""]
        if result.refused:
            sections += ["Paper numbers left out (they come from other data than these runs): "
                         + "; ".join(result.refused) + ".", ""]
        process = process_tables_of(result, folder)
        for table in [*suite_tables(result), *process]:
            sections.append(table.markdown())
            tables.append({"suite": result.name, **table.as_json()})
            path = out_dir / f"{result.name}-{table.name}.csv"
            path.write_text(table.csv(), encoding="utf-8")
            files.append(str(path))
        if not process and not is_reasoning(result):
            sections += ["(No process measures: no stored run of this suite has a readable trace.)", ""]
        for path in plots.suite_plots(result, out_dir):
            sections += [f"![{path.stem}]({path.name})", ""]
            files.append(str(path))
        all_rows += [r for rows in result.teams.values() for r in rows]
    planners = planner_table(folder)
    if planners is not None:
        sections.append(planners.markdown())
        path = out_dir / "planners.csv"
        path.write_text(planners.csv(), encoding="utf-8")
        files.append(str(path))
    noise_plot = plots.tokens_vs_noise(all_rows, out_dir / "prompt-tokens-vs-dummy-objects.png")
    if noise_plot is not None:
        sections += ["## Prompt tokens per decision vs dummy objects", "", f"![noise]({noise_plot.name})", ""]
        files.append(str(noise_plot))
    report = out_dir / "report.md"
    report.write_text("\n".join(sections), encoding="utf-8")
    files.insert(0, str(report))
    teams = [s.as_dict() for r in results for s in r.summaries.values()]
    refused = {r.name: r.refused for r in results if r.refused}
    return {"store": str(folder), "report": str(report), "files": files, "teams": teams, "tables": tables,
            "refused_references": refused}
