"""Team members on TDW-MAT: RHP alone and in pairs (pinned, so a rule change shows), and CoELA's wiring with the
scripted chat model, beside RHP, to the horizon."""

from __future__ import annotations

import re
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

#: RHP's transport rates on two train episodes with the default rules (oracle perception): alone, and as a pair.
PINNED = {("train/0", 1): 0.3, ("train/0", 2): 0.8, ("train/12", 1): 0.6, ("train/12", 2): 0.9}


def _rhp(episode: str, agents: int, **options: Any) -> dict[str, float]:
    env = envs.make("tdw-mat", episode=episode, num_agents=agents, **options)
    return run_episode(env, [make_partner("rhp") for _ in range(agents)]).metrics


@pytest.mark.parametrize(("episode", "agents"), sorted(PINNED))
def test_rhp_transports_and_its_rates_are_pinned(episode: str, agents: int) -> None:
    metrics = _rhp(episode, agents)
    assert metrics["transport_rate"] == PINNED[(episode, agents)]
    assert metrics["communication_steps"] == 0  # RHP never talks


def test_rhp_is_deterministic_and_a_pair_beats_one() -> None:
    assert _rhp("train/3", 2, perception="detector") == _rhp("train/3", 2, perception="detector")
    assert _rhp("train/3", 2)["transport_rate"] >= _rhp("train/3", 1)["transport_rate"]


OPTION = re.compile(r"^([A-Z]{1,2})\. ", re.MULTILINE)


def _script() -> Any:
    calls: list[int] = []

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        letters = OPTION.findall(str(messages[-1].content))
        calls.append(1)
        if letters:
            return f"Reasoning: try another option\nAnswer: {letters[len(calls) % len(letters)]}"
        return "I found <apple> (5) in the <Kitchen> (1000)."

    return reply


def test_coela_with_the_scripted_model_runs_beside_rhp_to_the_horizon() -> None:
    agent = GraphAgent(load_spec(GRAPHS_DIR / "coela.yaml", env="tdw-mat"), lm=scripted_lm(_script()),
                       vector_memory=False)
    env = envs.make("tdw-mat", episode="train/13", num_agents=2)
    result = run_episode(env, [agent, make_partner("rhp")])
    assert result.steps == 3000 or result.success
    assert result.metrics["delivered"] >= 1
    assert result.per_agent["alice"]["communication_steps"] >= 1  # CoELA's drafts go out as messages
