"""Mixed teams on TDW-MAT, as in CoELA's and CaPo's heterogeneous tables: RHP + CoELA and CaPo + CoELA play with the
scripted chat model, each member walking (not only waiting or talking) and the episode reaching its frame limit."""

from __future__ import annotations

import pytest

from coopgraph import envs
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.teams import make_team
from coopgraph.testing import scripted_lm
from tests.testing.test_toyhouse_specs import _script

FRAMES = 200


@pytest.mark.parametrize("names", [["rhp", "coela"], ["capo", "coela"]], ids="+".join)
def test_mixed_team_plays_tdw_mat(names: list[str]) -> None:
    team = make_team(names, lm_factory=lambda: scripted_lm(_script()), env="tdw-mat")
    for member in team:
        member.vector_memory = False  # Chroma's start-up is not what this tests
    env = envs.make("tdw-mat", episode="train/3", num_agents=2, max_steps=FRAMES)
    result = run_episode(env, team)
    assert result.steps == FRAMES or result.success
    for agent, name in zip(("alice", "bob"), names, strict=True):
        assert result.per_agent[agent]["metres_walked"] > 0, f"{name} never walked"
        assert result.per_agent[agent]["invalid_actions"] <= 3
    assert result.team == names
