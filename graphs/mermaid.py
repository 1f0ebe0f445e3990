"""Mermaid text for a spec, drawn from the spec itself so drawings are stable under snapshot tests."""

from __future__ import annotations

from coopgraph.graphs.loader import LoadedSpec
from coopgraph.graphs.spec import END


def to_mermaid(loaded: LoadedSpec) -> str:
    spec = loaded.spec
    lines = ["flowchart TD", "    __start__([start])", "    __end__([end])"]
    for node_id, node in spec.nodes.items():
        lines.append(f'    {node_id}["{node_id}<br/><small>{node.use}</small>"]')
    lines.append(f"    __start__ --> {spec.entry}")
    for _, source, target in spec.chain_pairs():
        lines.append(f"    {source} --> {'__end__' if target == END else target}")
    for _, edge in spec.router_edges():
        for branch, target in edge.branches.items():
            lines.append(f"    {edge.source} -. {branch} .-> {'__end__' if target == END else target}")
    return "\n".join(lines) + "\n"
