"""The `coopgraph` app (typer + rich) and what its commands share: one-line errors, whole numbers, `--json` output.

Every result-producing command also speaks `--json`; each command lives in its own module of this package."""

from __future__ import annotations

import json
import sys
import warnings
from typing import NoReturn, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from coopgraph.llm.offline import apply_offline_env

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Cooperative embodied LLM agents as graphs.")
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


def emit_json(payload: object, stream: TextIO | None = None) -> None:
    """One machine-readable JSON object on stdout (or the stdout a command saved before redirecting), nothing else."""
    (stream or sys.stdout).write(json.dumps(payload, default=str) + "\n")


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

