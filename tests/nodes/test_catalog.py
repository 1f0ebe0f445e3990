"""docs/nodes.md is generated from the registry; it must match what the registry says now."""

from __future__ import annotations

from pathlib import Path

from coopgraph.nodes.catalog import markdown
from coopgraph.nodes.registry import NODES

DOC = Path(__file__).parents[2] / "docs" / "nodes.md"


def test_committed_catalogue_matches_the_registry() -> None:
    assert DOC.read_text() == markdown(), "run `python -m coopgraph.nodes.catalog > docs/nodes.md`"


def test_every_node_is_documented_with_its_contract() -> None:
    text = markdown()
    for name in NODES.names():
        assert f"### `{name}`" in text
        for key in NODES.get(name).writes:
            assert f"`{key}`" in text
