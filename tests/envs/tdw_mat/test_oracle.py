"""TDW-MAT's full-information oracle: it transports more than RHP, and no team beats the admissible bound."""

from __future__ import annotations

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.envs.tdw_mat.experts.oracle import plan_team, tdw_bound
from coopgraph.runtime.episode_loop import run_episode
from tests.envs.tdw_mat.conftest import make_env


@pytest.mark.parametrize(("episode", "agents"), [("train/0", 1), ("train/12", 2)])
def test_the_oracle_beats_rhp_and_stays_within_the_bound(episode: str, agents: int) -> None:
    env = make_env(episode, num_agents=agents)
    bound = tdw_bound(env.episode, agents, env.rules)
    oracle = run_episode(env, [make_partner("tdw-oracle") for _ in range(agents)])
    rhp = run_episode(env, [make_partner("rhp") for _ in range(agents)])
    assert oracle.metrics["transport_rate"] > rhp.metrics["transport_rate"]
    for result in (oracle, rhp):
        assert result.metrics["transport_rate"] <= bound.transport_rate
        if result.metrics["transport_rate"] == 1.0:
            assert result.steps >= bound.frames


def test_a_short_horizon_tightens_the_bound_and_the_oracle_respects_it() -> None:
    env = make_env("train/0", num_agents=1, max_steps=600)
    bound = tdw_bound(env.episode, 1, env.rules)
    result = run_episode(env, [make_partner("tdw-oracle")])
    assert bound.transport_rate < 1.0 and bound.frames == float("inf")
    assert result.metrics["transport_rate"] <= bound.transport_rate


def test_the_plan_takes_every_target_once_and_starts_with_a_container() -> None:
    env = make_env("train/0", num_agents=2)
    plans = plan_team(env.episode, 2, env.rules)
    grasped = [op.object_id for ops in plans for op in ops if op.kind == "grasp"]
    targets = {o.id for o in env.episode.targets}
    assert sorted(i for i in grasped if i in targets) == sorted(targets)
    containers = {o.id for o in env.episode.containers}
    assert all(ops[0].object_id in containers for ops in plans)


def test_the_oracle_refuses_a_world_that_is_not_tdw_mat() -> None:
    env = envs.make("cwah", episode="test/0")
    with pytest.raises(ValueError, match="tdw-oracle plays TDW-MAT"):
        run_episode(env, [make_partner("tdw-oracle"), make_partner("tdw-oracle")])
