"""Commands for evaluations and traces: `eval` (suites into a result store), `report`, and
`trace view|diff|process|export`."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, redirect_stdout
from pathlib import Path
from typing import Any, TextIO

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from coopgraph.cli.app import app, console, emit_json, fail

trace_app = typer.Typer(no_args_is_help=True, help="Look at run traces: HTML viewer, side-by-side diff, how the team "
                        "cooperated, OTel export.")
app.add_typer(trace_app, name="trace")



def _progress() -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("[red]{task.fields[errors]} failed[/red]"), TimeElapsedColumn(),
                    TextColumn("ETA"), TimeRemainingColumn(), console=console)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM (schedulers, `timeout`, `kill`) like Ctrl-C: stop workers, keep stored rows, exit 130."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _team_means(store: Any, suite: str) -> dict[str, dict[str, Any]]:
    """Per team, the means over its current configuration's rows, as the report counts them."""
    from coopgraph.evals.metrics import mean
    from coopgraph.evals.report import current_rows
    from coopgraph.evals.unanswered import not_a_measurement

    teams: dict[str, list[dict[str, Any]]] = {}
    for row in store.rows(suite=suite):
        if not_a_measurement(row) is None:  # a row kept from before the rule, of a team this run left alone
            teams.setdefault(row["team"], []).append(row)
    means = {}
    for team, rows in teams.items():
        current, _ = current_rows(rows)
        means[team] = {"episodes": len(current), "success": mean(r["success"] for r in current),
                       "steps": mean(r["steps"] for r in current)}
    return means


@app.command("eval")
def eval_suite(
    suite: str = typer.Argument(..., help="suite YAML file, or a shipped suite name (cwah-baselines); `reasoning` "
                                "scores LLM-Co's reasoning questions instead (`eval reasoning [CSV|SET]`)"),
    questions: Path = typer.Argument(None, help="with `reasoning`: a question file in LLM-Co's CSV format, or a "
                                     "shipped set: full (LLM-Co's 198 questions, the default), sample (6 of its "
                                     "rows), coopgraph (408 from coopgraph's worlds)", show_default=False),
    out: Path = typer.Option(None, "--out", help="folder for the result store and traces (required for a suite; "
                             "reasoning: default runs/reasoning)"),
    workers: int = typer.Option(1, "--workers", min=1, help="parallel worker processes (for CPU-bound work)"),
    concurrency: int = typer.Option(1, "--concurrency", help="episodes at once in each process (or per Ray CPU), so "
                                    "that many model requests can be in flight"),
    llm: str = typer.Option(None, "--llm", help="override every graph agent's LLM (local, openai:M, vllm:M)"),
    limit: int = typer.Option(None, "--limit", min=1, help="at most N episodes per team (reasoning: N questions "
                              "spread over every type and game)"),
    max_steps: int = typer.Option(None, "--max-steps", min=1, help="cap every episode's steps (quick trials; "
                                  "stored apart from full-length runs)"),
    backend: str = typer.Option("local", "--backend", help="local (processes on this machine) or ray"),
    ray_address: str = typer.Option(None, "--ray-address", help="with --backend ray: the cluster (host:port; "
                                    "default RAY_ADDRESS, else a local instance)"),
    team: list[str] = typer.Option([], "--team", help="run only the team with this label (repeatable)"),
    trials: int = typer.Option(3, "--trials", min=1, help="reasoning: times each question is asked"),
    scorer: str = typer.Option("faithful", "--scorer", help="reasoning: faithful (LLM-Co's reading, quirks and "
                               "all) or fixed"),
    program: Path = typer.Option(None, "--program", help="reasoning: a program tuned by `coopgraph optimize`"),
    count_unanswered: bool = typer.Option(False, "--count-unanswered", help="count an episode some of whose "
                                          "questions went without a model answer (the nodes took their fallbacks); "
                                          "by default it is stored failed with why, left out of the report's "
                                          "figures and played again by a rerun"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object with what was run"),
) -> None:
    """Run a suite; finished episodes are stored at once, so a rerun resumes where an interrupted one stopped."""
    if suite == "reasoning":
        from coopgraph.cli.reasoning import eval_reasoning

        if workers != 1 or concurrency != 1 or backend != "local" or max_steps is not None or team \
                or count_unanswered:
            fail("--workers, --concurrency, --backend, --max-steps, --team and --count-unanswered apply to suites, "
                 "not to `eval reasoning`")
        with _sigterm_as_interrupt():
            eval_reasoning(questions, out=out or Path("runs/reasoning"), llm=llm, limit=limit, trials=trials,
                           scorer=scorer, program=program, as_json=as_json)
        return
    if questions is not None:
        fail(f"unexpected argument {questions}: only `eval reasoning` takes a question file")
    if out is None:
        fail("--out is required: the folder for the result store and traces")
    # With --json, stdout is the one JSON object: whatever else prints there while the command runs goes to stderr.
    # Ray's driver reports a killed worker on stdout from its own thread, even with log_to_driver off, and at any
    # moment after the death, so the redirect covers the whole command and the JSON goes to the saved stdout.
    stdout = sys.stdout
    with redirect_stdout(sys.stderr) if as_json else nullcontext():
        _run_suite(suite, out, workers=workers, concurrency=concurrency, llm=llm, limit=limit, max_steps=max_steps,
                   backend=backend, ray_address=ray_address, team=team, as_json=as_json, stdout=stdout,
                   count_unanswered=count_unanswered)


def _run_suite(suite: str, out: Path, *, workers: int, concurrency: int, llm: str | None, limit: int | None,
               max_steps: int | None, backend: str, ray_address: str | None, team: list[str], as_json: bool,
               stdout: TextIO, count_unanswered: bool = False) -> None:
    """`coopgraph eval SUITE`'s work once the options are read: check, expand, run into the store, sum up."""
    from coopgraph.cli.run import check_out_folder
    from coopgraph.evals.parallel import ConcurrencyInvalid, check_concurrency, run_jobs
    from coopgraph.evals.store import StoreDamaged, open_store
    from coopgraph.evals.suite import SuiteInvalid, expand_jobs, load_suite, unknown_members
    from coopgraph.evals.unanswered import marked_not_counted, unanswered

    if backend not in ("local", "ray"):
        fail(f"--backend must be local or ray, not {backend!r}")
    try:
        check_concurrency(concurrency)
    except ConcurrencyInvalid as exc:
        fail(str(exc))
    if ray_address is not None and backend != "ray":
        fail("--ray-address applies to --backend ray")
    check_out_folder(out)
    if backend == "ray":
        from coopgraph.evals.ray_backend import BackendUnavailable, check_reachable, cluster_address, import_ray

        try:
            import_ray()
            address = cluster_address(ray_address)
            if address is not None:  # refused before the store is opened, in bounded time
                check_reachable(address)
        except BackendUnavailable as exc:
            fail(str(exc))
    try:
        loaded, path, text = load_suite(suite)
    except SuiteInvalid as exc:
        for error in exc.errors:
            console.print(str(error), markup=False, highlight=False)
        raise typer.Exit(2) from None
    if loaded.kind == "user-study":
        fail(f"{path} is a user study: each participant plays it with `coopgraph play --study {path} "
             "--participant ID`; `coopgraph report` reads its store")
    if llm is not None:
        from coopgraph.llm.settings import LLMSettingError, parse_setting

        try:
            parse_setting(llm)
        except LLMSettingError as exc:  # refused before any job: the store is not even opened
            fail(f"--llm: {exc}")
    labels = [t.label for t in loaded.teams]
    unknown_labels = [t for t in team if t not in labels]
    if unknown_labels:
        fail(f"no team {', '.join(map(repr, unknown_labels))} in {path}; teams: {', '.join(labels)}")
    missing = unknown_members(loaded)
    selected = [t for t in (team or labels) if t not in missing]
    for label, names in missing.items():
        if not team or label in team:
            console.print(f"[yellow]skipping team {escape(label)}:[/yellow] unknown member(s) "
                          f"{', '.join(sorted(set(names)))} (not a baseline or graph spec yet)", highlight=False)
    jobs = expand_jobs(loaded, out, llm=llm, limit=limit, teams=selected, max_steps=max_steps)
    try:
        store = open_store(out)
    except StoreDamaged as exc:
        fail(str(exc))
    with store:
        store.save_suite(loaded.name, str(path), text)
        progress = _progress()
        task = progress.add_task(loaded.name, total=len(jobs), errors=0)

        def started(n: int) -> None:
            progress.update(task, total=n, completed=0)

        def finished(job: Any, row: dict[str, Any]) -> None:
            failed = progress.tasks[0].fields["errors"] + (row.get("status") != "done")
            progress.update(task, advance=1, errors=failed)
            missing = unanswered(row)
            if marked_not_counted(row) and missing is not None:  # said now: the server may still be down
                progress.console.print(f"[yellow]not counted[/yellow] {escape(job.team)} {job.episode} seed "
                                       f"{job.seed}: {missing.text}; a rerun plays it again", highlight=False)

        with progress, _sigterm_as_interrupt():
            summary = run_jobs(jobs, store, workers=workers, backend=backend, concurrency=concurrency,
                               ray_address=ray_address, on_result=finished, on_start=started,
                               count_unanswered=count_unanswered)
        teams = _team_means(store, loaded.name)
        payload = {"suite": loaded.name, "suite_file": str(path), "out": str(out), "store": str(store.path),
                   "jobs": summary.total, "skipped_done": summary.skipped, "ran": summary.done + summary.errors,
                   "done": summary.done, "errors": summary.errors, "interrupted": summary.interrupted,
                   "skipped_teams": sorted(label for label in missing if not team or label in team),
                   "not_counted": summary.not_counted, "marked_kept": summary.marked_kept,
                   "error_messages": summary.error_messages[:20], "teams": teams}
        if as_json:
            emit_json(payload, stdout)
    if not as_json:
        console.print(f"{loaded.name}: {summary.done} run, {summary.skipped} already stored, "
                      f"{summary.errors} failed → {store.path}", highlight=False)
        if summary.marked_kept:
            console.print(f"  {summary.marked_kept} episodes stored before went partly without their model: "
                          "marked failed and played again", highlight=False)
        if summary.not_counted:
            console.print(f"  {len(summary.not_counted)} of the failed went partly without their model (not "
                          "counted; `--count-unanswered` counts them)", highlight=False)
        for message in summary.error_messages[:5]:
            console.print(f"  [red]failed[/red] {escape(message)}", highlight=False)
        for label, t in teams.items():
            console.print(f"  {escape(label)}: {t['episodes']} episodes, success {t['success']:.0%}, "
                          f"steps {t['steps']:.1f}", highlight=False)
    if summary.interrupted:
        console.print("[yellow]interrupted[/yellow]: finished episodes are stored; rerun the same command to "
                      "resume", highlight=False)
        raise typer.Exit(130)
    raise typer.Exit(1 if summary.errors else 0)


@app.command("report")
def report(
    folder: Path = typer.Argument(..., help="the --out folder of `coopgraph eval`"),
    out: Path = typer.Option(None, "--out", help="where to write report.md, CSVs and plots (default DIR/report)"),
    as_json: bool = typer.Option(False, "--json", help="every table's cells (mean, ci95, n) and per team the "
                                 "mean of each metric"),
) -> None:
    """Tables in the papers' layouts (markdown + CSV) and plots from a result store: each mean with its 95% interval."""
    from coopgraph.cli.run import check_out_folder
    from coopgraph.evals.report import write_report
    from coopgraph.evals.store import StoreDamaged

    if out is not None:
        check_out_folder(out)
    try:
        result = write_report(folder, out)
    except (FileNotFoundError, StoreDamaged) as exc:
        fail(str(exc))
    if as_json:
        emit_json(result)
        return
    sys.stdout.write(Path(result["report"]).read_text(encoding="utf-8"))
    console.print(f"wrote {len(result['files'])} files under {Path(result['report']).parent}", highlight=False)


@trace_app.command("view")
def trace_view(
    trace: Path = typer.Argument(..., help="a run's JSONL trace"),
    output: Path = typer.Option(None, "-o", "--output", help="HTML file to write (default: next to the trace)"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Write one self-contained HTML page for a run: timeline, dialogue, map replay, decisions, graph, metrics."""
    from coopgraph.record.viewer import NotATrace, write_view

    if not trace.is_file():
        fail(f"no trace file {trace}")
    target = output or trace.with_suffix(".html")
    if target.resolve() == trace.resolve():
        fail(f"--output {target} is the trace itself; name an .html file")
    if target.is_dir():
        fail(f"--output {target} is a folder; name an .html file")
    try:
        info = write_view(trace, target)
    except NotATrace as exc:
        fail(str(exc))
    if as_json:
        emit_json(info)
    else:
        console.print(f"wrote {target} ({info['bytes'] // 1024} KiB, {info['steps']} steps, "
                      f"{info['decisions']} decisions)", highlight=False)


@trace_app.command("diff")
def trace_diff(
    first: Path = typer.Argument(..., help="trace A"),
    second: Path = typer.Argument(..., help="trace B (same episode)"),
    output: Path = typer.Option(None, "-o", "--output", help="write HTML (.html) or text (other suffix)"),
    as_json: bool = typer.Option(False, "--json", help="print the comparison summary as JSON"),
) -> None:
    """Two runs of the same episode side by side, step by step, with their metrics."""
    from coopgraph.evals.trace_diff import compare, render_html, render_text

    for path in (first, second):
        if not path.is_file():
            fail(f"no trace file {path}")
    comparison = compare(first, second)
    if output is not None:
        html = output.suffix.lower() in (".html", ".htm")
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(render_html(comparison) if html else render_text(comparison), encoding="utf-8")
    if as_json:
        emit_json(comparison.summary())
    elif output is None:
        sys.stdout.write(render_text(comparison))
    else:
        console.print(f"wrote {output}", highlight=False)


@trace_app.command("process")
def trace_process(
    trace: Path = typer.Argument(..., help="a run's JSONL trace"),
    as_json: bool = typer.Option(False, "--json", help="print the measures, their n/a reasons and the viewer's marks"),
) -> None:
    """How the team cooperated: idle, waiting, duplicated effort, conflicts, plan-changing messages, work share."""
    from coopgraph.record.process import process_measures
    from coopgraph.record.process.text import render_text
    from coopgraph.record.viewer import NotATrace, load_trace

    if not trace.is_file():
        fail(f"no trace file {trace}")
    try:
        events = load_trace(trace)
    except NotATrace as exc:
        fail(str(exc))
    measures = process_measures(events)
    if as_json:
        emit_json(measures.as_dict())
    else:
        sys.stdout.write(render_text(measures, trace.name))


@trace_app.command("export")
def trace_export(
    trace: Path = typer.Argument(..., help="a run's JSONL trace"),
    otlp_json: Path = typer.Option(None, "--otlp-json", help="write OTLP/JSON spans (GenAI conventions) here"),
    otlp_proto: Path = typer.Option(None, "--otlp-proto", help="also/instead write binary OTLP protobuf here"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Export a trace as OpenTelemetry spans with gen_ai.* attributes, for Phoenix, Langfuse or any OTLP tool."""
    from coopgraph.record.otel_export import write_otlp

    if otlp_json is None and otlp_proto is None:
        fail("name an output: --otlp-json FILE and/or --otlp-proto FILE")
    if not trace.is_file():
        fail(f"no trace file {trace}")
    try:
        info = write_otlp(trace, json_path=otlp_json, proto_path=otlp_proto)
    except RuntimeError as exc:
        fail(str(exc))
    if as_json:
        emit_json(info)
    else:
        where = ", ".join(str(p) for p in (otlp_json, otlp_proto) if p is not None)
        console.print(f"wrote {info['spans']} spans ({info['llm_spans']} LLM calls) to {where}", highlight=False)
