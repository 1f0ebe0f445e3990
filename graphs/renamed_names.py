"""Old registry names in a spec: rewritten to the names now registered, each with a W202 warning.

Users' own specs keep loading after an entry is renamed (say `route.needs_plan` to `execution.needs_plan`); the
warning, with the spec's file and line, tells them what to write instead.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from coopgraph.graphs.errors import SpecError, SpecWarning
from coopgraph.nodes.registry import NODES, ROUTERS

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec

#: Where each warning was shown already, so a spec loaded many times (an evaluation) warns once per place.
_SHOWN: dict[str | tuple[str, type[Warning], int], int] = {}


def rename_old_names(loaded: LoadedSpec) -> list[SpecError]:
    """Replace every old node or router name in the spec by its new one; one W202 per replaced name."""
    found: list[SpecError] = []

    def note(kind: str, old: str, new: str, path: tuple) -> None:
        file, mark = loaded.where(path)
        found.append(SpecError("W202", f"{kind} `{old}` is now `{new}`", file,
                               mark.line if mark else None, mark.column if mark else None))

    for node_id, node in loaded.spec.nodes.items():
        if node.use in NODES.renamed:
            new = NODES.renamed[node.use]
            note("node", node.use, new, ("nodes", node_id, "use"))
            node.use = new
    for index, edge in loaded.spec.router_edges():
        if edge.router in ROUTERS.renamed:
            new = ROUTERS.renamed[edge.router]
            note("router", edge.router, new, ("edges", index, "router"))
            edge.router = new
    return found


def show(found: list[SpecError]) -> None:
    """Report each warning through Python's `warnings` at the spec's own file and line, so the command line,
    a notebook and a test runner all show it, once per place."""
    for problem in found:
        message = f"{problem.code} {problem.message} (hint: {problem.hint})"
        warnings.warn_explicit(message, SpecWarning, problem.file, problem.line or 1, registry=_SHOWN)
