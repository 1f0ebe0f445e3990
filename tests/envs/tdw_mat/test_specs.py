"""CoELA's and CaPo's wirings and their ablations load on TDW-MAT and play with the scripted chat model beside RHP:
every plan comes from the world's list and the episode advances. REVECA's need capabilities not declared yet."""

from __future__ import annotations

import pytest

from coopgraph import envs
from coopgraph.envs.baselines import make_baseline
from coopgraph.evals.runner import run_episode
from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
from coopgraph.testing import scripted_lm
from tests.testing.test_toyhouse_specs import CheckedAgent, _script

SPECS = ["coela", "capo", "variants/coela-lite", "variants/capo-lite",
         *sorted(f"ablations/{p.stem}" for p in (GRAPHS_DIR / "ablations").glob("c*.yaml"))]
FRAMES = 400


@pytest.mark.parametrize("spec", SPECS)
def test_coela_and_capo_specs_play_tdw_mat_with_the_scripted_model(spec: str) -> None:
    agent = CheckedAgent(load_spec(GRAPHS_DIR / f"{spec}.yaml", env="tdw-mat"), lm=scripted_lm(_script()),
                         vector_memory=False)
    env = envs.make("tdw-mat", episode="train/12", num_agents=2, max_steps=FRAMES)
    result = run_episode(env, [agent, make_baseline("rhp")])
    assert result.steps == FRAMES or result.success
    assert agent.plans, "the agent never chose a plan"
    assert any(not a.startswith("[wait]") for a in agent.actions), "the agent only waited"
    assert result.per_agent["alice"]["invalid_actions"] <= 3
