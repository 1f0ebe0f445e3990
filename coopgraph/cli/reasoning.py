"""`coopgraph eval reasoning CSV` (LLM-Co's reasoning questions scored into a result store) and `coopgraph data
reasoning` (a question set generated from coopgraph's own worlds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from coopgraph.cli.app import console, emit_json, fail
from coopgraph.cli.data import data_app


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def print_summary(summary: dict[str, Any]) -> None:
    """Per type, per game and overall: accuracy ± LLM-Co's error bar, beside chance."""
    console.print(f"{summary['questions']} questions × {summary['overall']['trials']} trials, scorer "
                  f"{summary['scorer']}, {summary['unreadable']} unreadable answers", highlight=False)
    groups = [("overall", summary["overall"]), *summary["types"].items(),
              *((f"game {g}", s) for g, s in summary["games"].items())]
    for name, group in groups:
        console.print(f"  {escape(name):<22} {_percent(group['accuracy']):>7} ± {_percent(group['sem'])}  "
                      f"(chance {_percent(group['chance'])}, n={group['questions']})", highlight=False)


def eval_reasoning(questions_file: Path | None, *, out: Path, llm: str | None, limit: int | None, trials: int,
                   scorer: str, program: Path | None, as_json: bool) -> None:
    """Ask each question `trials` times, store every answer, print accuracy beside chance."""
    from coopgraph.cli.run import check_out_folder
    from coopgraph.evals.reasoning.asking import load_program
    from coopgraph.evals.reasoning.questions import QuestionFileError, load_questions
    from coopgraph.evals.reasoning.run import ReasoningRun, run_questions, spread
    from coopgraph.evals.reasoning.scoring import SCORERS
    from coopgraph.evals.reasoning.sets import resolve_questions
    from coopgraph.evals.reasoning.summary import accuracy_summary
    from coopgraph.evals.store import StoreDamaged, open_store
    from coopgraph.llm import factory
    from coopgraph.llm.settings import LLMSettingError, parse_setting

    questions_file, set_name = resolve_questions(questions_file)
    if scorer not in SCORERS:
        fail(f"unknown --scorer {scorer!r}; use one of: {', '.join(SCORERS)}")
    if program is not None and not program.is_file():
        fail(f"no program file {program}; write one with `coopgraph optimize reasoning QUESTIONS.csv -o {program}`")
    check_out_folder(out)
    try:
        questions, skipped = load_questions(questions_file)
        settings = parse_setting(llm)
    except (QuestionFileError, LLMSettingError) as exc:
        fail(str(exc))
    for bad in skipped:
        console.print(f"[yellow]{escape(str(bad))}[/yellow]", highlight=False)
    in_file = len(questions) + len(skipped)
    if skipped and not as_json:
        console.print(f"{escape(str(questions_file))}: {len(questions)} of {in_file} questions scored, "
                      f"{len(skipped)} left out (above)", highlight=False)
    scored_in_file = len(questions)
    questions = spread(questions, limit)
    if not questions:
        fail(f"{questions_file}: no question to score")
    run = ReasoningRun(questions_file, questions, settings.setting, trials, program)
    try:
        loaded = load_program(program)
    except Exception as exc:  # noqa: BLE001 - DSPy's loader raises many kinds; any of them means an unusable file
        fail(f"{program}: not a reasoning program ({type(exc).__name__}: {exc})")

    def make_lm(trial: int, tracer: Any) -> Any:  # one seed per trial, so sampled trials differ yet rerun alike
        return factory.make_lm(parse_setting(llm, seed=trial), tracer=tracer)

    try:
        store = open_store(out)
    except StoreDamaged as exc:
        fail(str(exc))
    with store:
        result = run_questions(run, store, out, make_lm, loaded)
        asked_ids = {q.id for q in questions}  # a --limit run reports its own questions, not all ever stored
        rows = [r for r in store.rows(suite=run.suite) if r["team"] == run.team
                and r["config_hash"] == run.config_hash() and r["episode"] in asked_ids]
    summary = accuracy_summary(rows, scorer)  # type: ignore[arg-type]
    payload = {"csv": str(questions_file), "set": set_name, "in_file": in_file, "scored_in_file": scored_in_file,
               "suite": run.suite, "llm": run.team, "out": str(out),
               "store": str(store.path), "trials": trials, "asked": result.asked, "skipped_done": result.skipped_done,
               "failed": result.failed, "interrupted": result.interrupted,
               "skipped": [s.as_dict() for s in skipped], **summary}
    if as_json:
        emit_json(payload)
    else:
        console.print(f"{run.suite}: {result.asked} answers asked, {result.skipped_done} already stored, "
                      f"{result.failed} failed → {store.path}", highlight=False)
        print_summary(summary)
    if result.interrupted:
        console.print("[yellow]interrupted[/yellow]: finished answers are stored; rerun the same command to resume",
                      highlight=False)
        raise typer.Exit(130)
    if result.failed:
        raise typer.Exit(1)


def optimize_reasoning(questions_file: Path | None, *, out: Path, optimizer: str, llm: str | None, train: int,
                       held_out: int, demos: int, seed: int, as_json: bool) -> None:
    """`coopgraph optimize reasoning CSV`: tune the reasoning program on the train split, accuracy (fixed scorer)
    on held-out questions before and after, the program saved for `eval reasoning --program`."""
    from coopgraph.evals.optimize import OPTIMIZERS
    from coopgraph.evals.reasoning.asking import load_program
    from coopgraph.evals.reasoning.questions import QuestionFileError, load_questions
    from coopgraph.evals.reasoning.sets import resolve_questions
    from coopgraph.evals.reasoning.tuning import measure, split_questions, tune
    from coopgraph.llm import factory
    from coopgraph.llm.settings import LLMSettingError

    if questions_file is None:
        fail("name a question file: coopgraph optimize reasoning CSV -o PROGRAM.json (one with a Split column, "
             "e.g. the shipped set `coopgraph`)")
    questions_file, _ = resolve_questions(questions_file)
    if optimizer not in OPTIMIZERS:
        fail(f"unknown optimizer {optimizer!r}; use one of: {', '.join(OPTIMIZERS)}")
    try:
        questions, skipped = load_questions(questions_file)
    except QuestionFileError as exc:
        fail(str(exc))
    trainset, held = split_questions(questions, train, held_out, seed)
    if not trainset or not held:
        fail(f"{questions_file} needs questions in the 'train' split and in the others (found {len(trainset)} / "
             f"{len(held)}); `coopgraph data reasoning` writes a Split column")
    try:  # after the file checks: make_lm starts the embedded server
        lm = factory.make_lm(llm)
    except LLMSettingError as exc:
        fail(str(exc))
    say = (lambda text: None) if as_json else (lambda text: console.print(text, highlight=False))
    for bad in skipped:
        say(f"[yellow]{escape(str(bad))}[/yellow]")
    program = load_program()
    say(f"measuring the reasoning prompt on {len(held)} held-out questions (before)")
    before = measure(program, held, lm)
    say(f"optimizing with {optimizer} on {len(trainset)} training questions")
    tuned = tune(program, trainset, optimizer, lm, demos=demos, seed=seed)
    after = measure(tuned, held, lm)
    out.parent.mkdir(parents=True, exist_ok=True)
    tuned.save(str(out))
    result = {"csv": str(questions_file), "optimizer": optimizer, "scorer": "fixed", "train": len(trainset),
              "before": before.as_dict(), "after": after.as_dict(), "program": str(out)}
    if as_json:
        emit_json(result)
        return
    for label, accuracy in (("before", before), ("after", after)):
        row = accuracy.as_dict()
        types = ", ".join(f"{kind} {value:.1%}" for kind, value in row["types"].items())
        say(f"{label:>6}: accuracy {row['accuracy']:.1%} ({types}), unreadable {row['unreadable']:.1%} (n={row['n']})")
    say(f"[green]saved[/green] {out}; ask with it: coopgraph eval reasoning {questions_file} --program {out}")


@data_app.command("reasoning")
def data_reasoning(
    out: Path = typer.Option(..., "-o", "--out", help="CSV file to write (LLM-Co's columns and a Split column)"),
    per_world: int = typer.Option(34, "--per-world", min=1, help="rows (three questions each) per world"),
    seed: int = typer.Option(0, "--seed", help="episode seed and option sampling"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object summarising what was written"),
) -> None:
    """Generate reasoning questions from coopgraph's worlds, answers computed from the world's state."""
    from coopgraph.evals.reasoning.generate_rows import generate, write_rows

    summary = write_rows(generate(seed, per_world), out)
    if as_json:
        emit_json(summary)
        return
    console.print(f"[green]wrote[/green] {summary['questions']} questions ({summary['rows']} rows) to {out}: "
                  f"{summary['games']}, splits {summary['splits']}", highlight=False)
