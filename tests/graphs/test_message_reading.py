"""One way to read messages: the published methods leave partners' messages to the LLM; only variants that say so
also read them into the belief with the world's rule-based reader (issue 34)."""

from __future__ import annotations

import pytest

from coopgraph.graphs.loader import load_spec, shipped_specs
from coopgraph.graphs.resolved import resolved_spec

PUBLISHED = ("coela", "capo", "reveca", "llmco")


def _reads_by_rules(name: str) -> list[bool]:
    nodes = resolved_spec(load_spec(name))["nodes"]
    return [node["params"]["read_messages"] for node in nodes.values() if node["use"] == "perception.perceive"]


@pytest.mark.parametrize("name", PUBLISHED)
def test_the_published_methods_leave_messages_to_the_llm(name: str) -> None:
    assert _reads_by_rules(name) == [False]


def test_every_spec_that_reads_messages_by_rules_says_so_in_its_description() -> None:
    readers = []
    for name in shipped_specs():
        if any(_reads_by_rules(name)):
            readers.append(name)
            description = load_spec(name).spec.description
            assert "rule-based reader" in description, f"{name} reads messages by rules without saying so"
    # the small-model variants keep the reader; no published wiring or ablation of one does
    assert sorted(readers) == ["capo-lite", "coela-brief", "coela-lite", "coela-news", "reveca-rules"]
