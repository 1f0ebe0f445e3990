"""The command reference (docs/cli.md), generated from the typer app so the page cannot drift from the CLI.

Run `python -m coopgraph.cli.reference > docs/cli.md` after adding or changing a command or option; a test
fails while the page is stale.
"""

from __future__ import annotations

from typing import Any

import typer.main

from coopgraph.cli.app import app


def _commands(group: Any, prefix: str) -> list[tuple[str, Any]]:
    """Every leaf command under `group` (a click-style group; typer vendors its own click) with its full name,
    in the order `--help` lists them."""
    found: list[tuple[str, Any]] = []
    for name, command in group.commands.items():
        if command.hidden:
            continue
        full = f"{prefix} {name}"
        if hasattr(command, "commands"):
            found.extend(_commands(command, full))
        else:
            found.append((full, command))
    return found


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _option_row(param: Any) -> str:
    is_option = param.param_type_name == "option"
    name = ", ".join(f"`{o}`" for o in param.opts) if is_option else f"`{param.name.upper()}`"
    help_text = getattr(param, "help", None) or ("print one JSON object" if "--json" in param.opts else "")
    default = param.default if is_option and not param.is_flag else None
    if default not in (None, (), []) and "default" not in help_text:
        help_text += f" (default: {default})"
    return f"| {name} | {_cell(help_text)} |"


def markdown() -> str:
    """The whole page: one section per command with its summary and its arguments and options."""
    root = typer.main.get_command(app)
    lines = ["# Command reference", "",
             "Generated from the CLI by `python -m coopgraph.cli.reference`; do not edit by hand. Every command "
             "that produces results also takes `--json` and then prints one JSON object on stdout; bad input ends "
             "in one line on stderr and exit code 2.", ""]
    for name, command in _commands(root, "coopgraph"):
        lines += [f"## `{name}`", "", _cell(command.help or ""), ""]
        params = [p for p in command.params if p.name != "help"]
        if params:
            lines += ["| argument / option | meaning |", "| --- | --- |", *(_option_row(p) for p in params), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(), end="")
