"""A run's replicate as its LLM members see it: model seeds given to graph members only, and whether any samples."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.envs.partners import make_partner
from coopgraph.graphs.loader import load_spec
from coopgraph.llm.seeds import model_seed
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.runtime.replicates import deterministic, member_temperature, replicate_seeds, seed_team
from coopgraph.testing import scripted_lm


def _graph(spec: str, **settings: Any) -> GraphAgent:
    lm = scripted_lm(["A"])
    lm.settings_public = {**lm.settings_public, **settings}
    return GraphAgent(load_spec(spec), lm=lm)


def test_only_graph_members_get_a_model_seed() -> None:
    team = [make_partner("mhp"), _graph("coela-brief")]
    seeds = replicate_seeds(["alice", "bob"], team, 2, 1)
    assert seeds == {"bob": model_seed(2, 1, "bob")} and team[1].model_seed == seeds["bob"]
    assert not hasattr(team[0], "model_seed")
    assert seed_team(["alice", "bob"], team, {"alice": 4, "bob": 9}) == {"bob": 9} and team[1].model_seed == 9


@pytest.mark.parametrize(("spec", "settings", "temperature"), [
    ("coela", {}, 0.7),  # the spec's `llm:` block: the paper's sampling
    ("coela-brief", {}, 0.0),  # `llm: {}`: the setting's temperature, 0 unless said
    ("coela-brief", {"temperature": 0.4}, 0.4),
])
def test_a_member_asks_at_its_specs_temperature_else_its_settings(spec: str, settings: dict[str, Any],
                                                                  temperature: float) -> None:
    assert member_temperature(_graph(spec, **settings)) == temperature


def test_a_team_is_deterministic_only_when_no_member_samples() -> None:
    assert deterministic([make_partner("mhp"), make_partner("mhp")])
    assert deterministic([_graph("coela-brief"), _graph("coela-brief")])
    assert not deterministic([_graph("coela-brief"), _graph("coela")])
    assert not deterministic([make_partner("mhp"), _graph("coela-brief", temperature=0.2)])
