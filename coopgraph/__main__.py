"""`python -m coopgraph` is the `coopgraph` command."""

from coopgraph.cli import main

main()
