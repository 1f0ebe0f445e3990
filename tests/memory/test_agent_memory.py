"""AgentMemory bundles one agent's memories; the memory package stays free of graphs, nodes, evals and concrete envs."""

from __future__ import annotations

import ast
from pathlib import Path

from coopgraph.memory.agent_memory import AgentMemory
from coopgraph.memory.episodic import EpisodicMemory
from coopgraph.memory.vector_store import VectorMemory

MEMORY_PACKAGE = Path(__file__).parents[2] / "memory"
FORBIDDEN = ("coopgraph.graphs", "coopgraph.nodes", "coopgraph.evals", "coopgraph.envs.cwah", "coopgraph.cli")


class FakeBelief:
    def __init__(self, objects: dict[int, str] | None = None) -> None:
        self.objects = objects or {}


def test_defaults_are_fresh_per_agent() -> None:
    first, second = AgentMemory(semantic=FakeBelief()), AgentMemory(semantic=FakeBelief())
    first.channels["capo"] = "split rooms"
    first.episodic.add_message("Bob", "hi", 1)
    assert second.channels == {} and second.episodic.messages == []
    assert isinstance(first.episodic, EpisodicMemory)
    assert first.vector is None and first.plan is None and first.plan_started_step is None


def test_reset_belief_replaces_only_the_belief() -> None:
    memory = AgentMemory(semantic=FakeBelief({305: "cupcake"}), procedural="skills")
    memory.episodic.add_action("[gocheck] <fridge> (120)", 3, "done")
    memory.vector_log.keys.add("saw cupcake")
    memory.reset_belief(FakeBelief)
    assert memory.semantic.objects == {}
    assert memory.procedural == "skills" and memory.vector_log.keys == {"saw cupcake"} and memory.episodic.actions


def test_close_frees_the_vector_store() -> None:
    memory = AgentMemory(semantic=FakeBelief(), vector=VectorMemory())
    memory.vector.add("saw <apple> (312) on <desk> (260)", kind="observation", step=1)
    memory.close()
    assert memory.vector.closed
    memory.close()  # idempotent


def test_memory_package_imports_no_graphs_nodes_evals_or_concrete_env() -> None:
    offenders = []
    for source in MEMORY_PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{source.name}: {n}" for n in names if n.startswith(FORBIDDEN)]
    assert offenders == []
