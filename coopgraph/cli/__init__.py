"""The `coopgraph` command line: `app` (typer) and `main`, the console script's entry point.

`app.py` holds the app, its shared helpers (`fail`, `emit_json`) and the `graph` and `model` commands; each other
module here is one command or command group and registers itself on `app` when imported, which this package does,
so `coopgraph.cli:main` and `from coopgraph.cli import app` see every command.
"""

from coopgraph.cli import data, evaluate, fork, optimize, play, reasoning, replay, run  # noqa: F401  (registration)
from coopgraph.cli.app import app, main

__all__ = ["app", "main"]
