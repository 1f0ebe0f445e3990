"""The node library is really shared: the methods reuse the same core nodes and none is copied under a new name."""

from __future__ import annotations

import hashlib
import inspect
import textwrap

import pytest

from coopgraph.graphs.loader import load_spec, shipped_specs
from coopgraph.nodes.registry import NODES

CORE = {"perception.perceive", "memory.retrieve", "planning.list_actions", "planning.choose_action",
        "execution.start_plan", "execution.step_plan"}
METHODS = ("coela", "capo", "reveca", "llmco")


def _uses(name: str) -> set[str]:
    return {node.use for node in load_spec(name).spec.nodes.values()}


@pytest.mark.parametrize("method", METHODS)
def test_each_method_uses_every_core_node(method: str) -> None:
    assert _uses(method) >= CORE


def test_methods_overlap_pairwise_and_differ() -> None:
    uses = {m: _uses(m) for m in METHODS}
    for a in METHODS:
        for b in METHODS:
            if a < b:
                assert uses[a] & uses[b] >= CORE
                assert uses[a] != uses[b], f"{a} and {b} are the same wiring"


def _body(fn: object) -> str:
    source = textwrap.dedent(inspect.getsource(fn))  # type: ignore[arg-type]
    lines = [line for line in source.splitlines() if not line.lstrip().startswith("@")]
    body = "\n".join(lines[1:])  # drop the def line: a copy would differ only in its name
    return hashlib.sha256(" ".join(body.split()).encode()).hexdigest()


def test_no_node_is_a_copy_of_another_under_a_new_name() -> None:
    seen: dict[str, str] = {}
    for name in NODES.names():
        digest = _body(NODES.get(name).fn)
        assert digest not in seen, f"{name} repeats {seen.get(digest)}"
        seen[digest] = name


def test_every_shipped_spec_only_uses_registered_nodes() -> None:
    for path in shipped_specs().values():
        for node in load_spec(path).spec.nodes.values():
            assert node.use in NODES.names()
