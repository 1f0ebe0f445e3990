"""The `coopgraph` command line: `app` (typer) and `main`, the console script's entry point.

`app.py` holds the app and its shared helpers (`fail`, `emit_json`); every other module here is one command or
command group and registers itself on `app` when imported, which this package does, so `coopgraph.cli:main` and
`from coopgraph.cli import app` see every command.
"""

# isort: off
# The order is the help's and docs/cli.md's: the spec and model commands first, then one module per command.
from coopgraph.cli import graph, model, nodes  # noqa: F401  (each registers its commands on `app`)
from coopgraph.cli import data, evaluate, fork, optimize, play, reasoning, replay, run  # noqa: F401
# isort: on
from coopgraph.cli.app import app, main

__all__ = ["app", "main"]
