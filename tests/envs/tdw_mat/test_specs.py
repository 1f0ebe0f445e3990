"""Every shipped house spec (CoELA, CaPo, REVECA, their variants and ablations) loads on TDW-MAT and plays with the
scripted chat model beside RHP: every plan comes from the world's list and the episode advances. LLM-Co's kitchen
wirings are refused at load time with the capability and template they miss."""

from __future__ import annotations

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.testing import scripted_lm
from tests.testing.test_toyhouse_specs import KITCHEN_ONLY, SPECS, CheckedAgent, _script

FRAMES = 200


@pytest.mark.parametrize("spec", SPECS)
def test_every_house_spec_plays_tdw_mat_with_the_scripted_model(spec: str) -> None:
    agent = CheckedAgent(load_spec(GRAPHS_DIR / f"{spec}.yaml", env="tdw-mat"), lm=scripted_lm(_script()),
                         vector_memory=False)
    env = envs.make("tdw-mat", episode="train/12", num_agents=2, max_steps=FRAMES)
    result = run_episode(env, [agent, make_partner("rhp")])
    assert result.steps == FRAMES or result.success
    assert agent.plans, "the agent never chose a plan"
    assert any(not a.startswith("[wait]") for a in agent.actions), "the agent only waited"
    assert result.per_agent["alice"]["invalid_actions"] <= 3


@pytest.mark.parametrize("spec", sorted(KITCHEN_ONLY))
def test_kitchen_specs_are_refused_on_tdw_mat_naming_what_they_miss(spec: str) -> None:
    with pytest.raises(SpecInvalid) as refused:
        load_spec(GRAPHS_DIR / f"{spec}.yaml", env="tdw-mat")
    text = str(refused.value)
    assert "'layout'" in text and "overcooked" in text
