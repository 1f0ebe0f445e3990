"""Every REVECA spec validates, compiles and draws; each ablation changes exactly what it says."""

from __future__ import annotations

import pytest

from coopgraph.graphs.loader import load_spec, shipped_specs
from coopgraph.testing import check_spec_file

REVECA_SPECS = ["reveca", "reveca-nospatial", "reveca-norelevance", "reveca-novalidation", "reveca-alwaysask",
                "reveca-nopartner", "reveca-k2", "reveca-k4"]


@pytest.mark.parametrize("name", REVECA_SPECS)
def test_reveca_spec_validates_compiles_and_draws(name: str) -> None:
    assert name in shipped_specs()
    check_spec_file(shipped_specs()[name])


def _params(name: str, node_id: str) -> dict:
    return load_spec(name).spec.nodes[node_id].params


def test_reveca_reuses_the_shared_nodes() -> None:
    uses = {n.use for n in load_spec("reveca").spec.nodes.values()}
    assert {"perception.perceive", "memory.retrieve", "planning.list_actions", "planning.choose_action",
            "execution.start_plan", "execution.step_plan"} <= uses
    assert load_spec("reveca").spec.nodes["choose_action"].prompt == "candidates/choose"


@pytest.mark.parametrize(("name", "node_id", "key", "value"), [
    ("reveca", "rank_candidates", "k", 3),
    ("reveca-k2", "rank_candidates", "k", 2),
    ("reveca-k4", "rank_candidates", "k", 4),
    ("reveca-nospatial", "rank_candidates", "spatial", False),
    ("reveca-nospatial", "focus", "spatial", False),
    ("reveca-norelevance", "focus", "use_relevance", False),
    ("reveca-norelevance", "rank_candidates", "use_relevance", False),
    ("reveca-novalidation", "validate", "mode", "never"),
    ("reveca-alwaysask", "validate", "mode", "always"),
    ("reveca-nopartner", "validate", "partner_info", False),
    ("reveca-nopartner", "focus", "partner_info", False),
])
def test_ablation_sets_its_param(name: str, node_id: str, key: str, value: object) -> None:
    assert _params(name, node_id)[key] == value


def test_norelevance_drops_the_scorer_and_keeps_the_chain() -> None:
    spec = load_spec("reveca-norelevance").spec
    assert "score_relevance" not in spec.nodes
    assert "perceive -> track_agents -> speak" in spec.edges
