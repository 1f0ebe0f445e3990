"""Checks a user can run on their own spec file: it loads, validates, compiles and draws."""

from __future__ import annotations

from pathlib import Path


def check_spec_file(path: str | Path) -> None:
    """Raise SpecInvalid (with every problem) or an AssertionError when the spec cannot be used."""
    from coopgraph.graphs.compiler import compile_spec
    from coopgraph.graphs.loader import load_spec
    from coopgraph.graphs.mermaid import to_mermaid

    loaded = load_spec(Path(path))
    compiled = compile_spec(loaded)
    assert compiled is not None
    drawing = to_mermaid(loaded)
    for node_id in loaded.spec.nodes:
        assert node_id in drawing, f"node {node_id} missing from the drawing"
