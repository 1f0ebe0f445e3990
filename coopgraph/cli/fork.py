"""`coopgraph fork`: play a recorded episode on from one step, with one thing changed, as a new run."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from coopgraph.cli.app import app, console, emit_json, fail, whole_number


@app.command("fork")
def fork_command(
    trace: Path = typer.Argument(..., help="a run's trace (JSONL); graph members need its checkpoints on disk"),
    at: int = typer.Option(..., "--at", min=0, help="the step to branch at (0 = the start)"),
    llm: str | None = typer.Option(None, "--llm", help="another LLM setting for the graph members (default: the "
                                   "run's)"),
    team: str | None = typer.Option(None, "--team", help="the team from the fork on, one member per agent (e.g. "
                                    "mhp,coela); changed members join at the fork step"),
    say: str | None = typer.Option(None, "--say", help="AGENT:TEXT: the others receive TEXT from AGENT at the "
                                   "fork step, as any message"),
    seed: str | None = typer.Option(None, "--seed", help="graph members sample with the model seeds of this seed "
                                    "(as `coopgraph run --seed`) from the fork on; default: the run's own model seeds "
                                    "(the world keeps the run's seed either way)"),
    out: Path | None = typer.Option(None, "--out", help="folder for the fork's trace (default: the original's)"),
    fork_trace: Path | None = typer.Option(None, "--trace", help="the fork's trace file (default: ORIGINAL-forkSTEP-"
                                           "TIME.jsonl in --out); checkpoints go beside it"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object with the result"),
) -> None:
    """Rebuild a run at one step, optionally change a model, a member or a message, and play it to the end."""
    from coopgraph.cli.run import _live_printer, _print_result, check_out_folder
    from coopgraph.graphs.errors import SpecInvalid
    from coopgraph.record.checkpoints import UnsafeCheckpoint
    from coopgraph.runtime.fork import fork_run
    from coopgraph.runtime.teams import parse_team

    if not trace.is_file():
        fail(f"{trace}: no such trace file")
    model_seed = None if seed is None else whole_number(seed, "--seed")
    if out is not None:
        check_out_folder(out)
    if fork_trace is not None:
        if fork_trace.suffix != ".jsonl":
            fail(f"--trace {fork_trace}: a trace is a .jsonl file (e.g. runs/fork.jsonl)")
        check_out_folder(fork_trace.parent, "--trace")
    try:
        result = fork_run(trace, at, llm=llm, team=None if team is None else parse_team(team), say=say, out=out,
                          trace_path=fork_trace, listeners=() if as_json else (_live_printer,), seed=model_seed)
    except (SpecInvalid, UnsafeCheckpoint, KeyError, ValueError) as exc:  # TraceError is a ValueError
        fail(str(exc.args[0] if exc.args else exc))
    if as_json:
        emit_json(result.payload())
        return
    _print_result(result)
    console.print(f"forked from {escape(str(trace))} at step {at}; compare: coopgraph trace diff "
                  f"{escape(str(trace))} {escape(str(result.trace_path))}", highlight=False)
