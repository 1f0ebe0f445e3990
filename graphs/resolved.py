"""The resolved form of a spec (after `extends:`), as plain data anyone can diff between wirings."""

from __future__ import annotations

from typing import Any

from coopgraph.graphs.loader import LoadedSpec
from coopgraph.nodes.registry import NODES


def resolved_spec(loaded: LoadedSpec) -> dict[str, Any]:
    spec = loaded.spec
    nodes = {}
    for node_id, node in spec.nodes.items():
        info = NODES.get(node.use)
        nodes[node_id] = {
            "use": node.use,
            "params": info.params.model_validate(node.params).model_dump(),
            "prompt": node.prompt or info.prompt,
            "program": node.program,
            "reads": list(info.reads),
            "optional_reads": list(info.optional_reads),
            "writes": list(info.writes),
        }
    return {
        "name": spec.name,
        "description": spec.description,
        "file": str(loaded.path),
        "extends": spec.extends,
        "params": spec.params,
        "llm": spec.llm.model_dump(exclude_none=True),
        "inputs": spec.inputs,
        "entry": spec.entry,
        "nodes": nodes,
        "edges": [e if isinstance(e, str) else e.model_dump(by_alias=True) for e in spec.edges],
    }
