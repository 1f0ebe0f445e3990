"""`coopgraph replay`: run one recorded decision again and say whether it comes out the same."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from coopgraph.cli.app import app, console, emit_json, fail


@app.command("replay")
def replay_command(
    trace: Path = typer.Argument(..., help="a run's trace (JSONL); the run must have saved checkpoints to disk"),
    agent: str = typer.Option(..., "--agent", help="the agent id whose decision to replay (e.g. alice)"),
    decision: int | None = typer.Option(None, "--decision", min=1, help="the agent's Nth decision (1 = first)"),
    step: int | None = typer.Option(None, "--step", min=0, help="or: the agent's step at this environment time"),
    llm: str | None = typer.Option(None, "--llm", help="another LLM setting (default: the run's)"),
    spec: str | None = typer.Option(None, "--spec", help="another spec of the same wiring (default: the run's)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Restore an agent just before one of its decisions and let it decide again (another model or prompt)."""
    from coopgraph.graphs.errors import SpecInvalid
    from coopgraph.record.checkpoints import UnsafeCheckpoint
    from coopgraph.runtime.replay_decision import ReplayError, replay

    if not trace.is_file():
        fail(f"{trace}: no such trace file")
    try:
        result = replay(trace, agent, decision=decision, step=step, llm=llm, spec=spec)
    except (ReplayError, SpecInvalid, UnsafeCheckpoint, KeyError, ValueError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    except json.JSONDecodeError:
        fail(f"{trace}: not a JSONL trace")
    payload = {"agent": result.agent, "step": result.step, "decision": result.decision, "llm": result.llm,
               "prompt": result.prompt, "answer": result.answer, "plan": result.plan, "action": result.action,
               "original": {"answer": result.original_answer, "plan": result.original_plan,
                            "action": result.original_action},
               "differs": result.differs}
    if as_json:
        emit_json(payload)
        return
    for message in result.prompt or []:
        console.rule(f"[bold]{message['role']}[/bold]")
        console.print(escape(message["content"]), highlight=False)
    console.rule("[bold]answer[/bold]")
    console.print(f"replay ({escape(result.llm)}): {escape(str(result.answer))}", highlight=False)
    console.print(f"run:    {escape(str(result.original_answer))}", highlight=False)
    console.print(f"plan:   {escape(str(result.plan))}  (run: {escape(str(result.original_plan))})", highlight=False)
    verdict = "[yellow]differs from the run[/yellow]" if result.differs else "[green]same as the run[/green]"
    console.print(f"{result.agent} at step {result.step}: {verdict}", highlight=False)
