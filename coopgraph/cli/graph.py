"""`coopgraph graph validate|draw`: check graph specs (every problem with file:line:column) and draw them."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from coopgraph.cli.app import app, console, emit_json, fail

graph_app = typer.Typer(no_args_is_help=True, help="Validate and draw graph specs.")
app.add_typer(graph_app, name="graph")


@graph_app.command("validate")
def graph_validate(
    paths: list[str] = typer.Argument(..., help="spec files or shipped spec names"),
    as_json: bool = typer.Option(False, "--json", help="print the resolved specs or the errors as JSON"),
    env: str = typer.Option(None, "--env", help="also check against this world's kit: capabilities and prompts"),
    llm: str = typer.Option(None, "--llm", help="also check against what this LLM profile can be asked"),
) -> None:
    """Check specs; print every problem with file:line:column and exit 1 if any spec is invalid."""
    from coopgraph.envs import UnknownEnvironmentError, kit_info
    from coopgraph.graphs.errors import SpecInvalid
    from coopgraph.graphs.loader import load_spec
    from coopgraph.graphs.resolved import resolved_spec
    from coopgraph.graphs.template_checks import caller_inputs

    if env is not None:
        try:
            kit_info(env)
        except UnknownEnvironmentError as exc:
            fail(str(exc))
    results, failed = [], False
    for ref in paths:
        try:
            loaded = load_spec(ref, env=env, llm=llm)
        except SpecInvalid as exc:
            failed = True
            results.append({"spec": ref, "valid": False, "errors": [e.as_dict() for e in exc.errors]})
            if not as_json:
                if not any(Path(e.file).stem == Path(ref).stem for e in exc.errors):
                    console.print(f"{ref}: invalid; the problems are in what it takes from the spec(s) it extends:",
                                  markup=False, highlight=False)
                for error in exc.errors:
                    console.print(str(error), markup=False, highlight=False)
            continue
        except Exception as exc:  # a loader bug must not stop the files after this one
            failed = True
            message = f"internal error while checking this spec ({type(exc).__name__}: {exc}); please report it"
            results.append({"spec": ref, "valid": False, "errors": [
                {"code": None, "message": message, "file": ref, "line": None, "column": None, "hint": ""}]})
            if not as_json:
                console.print(f"{ref}: {message}", markup=False, highlight=False)
            continue
        results.append({"spec": ref, "valid": True, "resolved": resolved_spec(loaded)})
        if not as_json:
            world = (f", fits {env}" if env else "") + (f", fits {llm}" if llm else "")
            if env and (needed := caller_inputs(loaded)):
                world += f"; not a team member: its caller hands it {', '.join(needed)} (inputs:)"
            console.print(f"[green]ok[/green] {loaded.path}  ({len(loaded.spec.nodes)} nodes{world})", highlight=False)
    if as_json:
        emit_json({"valid": not failed, "specs": results})
    raise typer.Exit(1 if failed else 0)


@graph_app.command("draw")
def graph_draw(path: str = typer.Argument(..., help="spec file or shipped spec name")) -> None:
    """Print the spec as Mermaid flowchart text."""
    from coopgraph.graphs.errors import SpecInvalid
    from coopgraph.graphs.loader import load_spec
    from coopgraph.graphs.mermaid import to_mermaid

    try:
        sys.stdout.write(to_mermaid(load_spec(path)))
    except SpecInvalid as exc:
        for error in exc.errors:
            console.print(str(error), markup=False, highlight=False)
        raise typer.Exit(1) from None
