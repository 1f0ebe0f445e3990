"""`coopgraph nodes`: the node library as specs see it: each node's reads, writes, capabilities and prompt."""

from __future__ import annotations

import typer
from rich.markup import escape

from coopgraph.cli.app import app, console, emit_json


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
