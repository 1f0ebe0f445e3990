"""Every shipped spec (the methods, their small-model variants and their ablations) runs on the toyhouse with the
scripted chat model, alone and in a mixed team with the toyhouse expert: the episode advances and every plan comes
from the world's list."""

from __future__ import annotations

import re
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import SEND_MESSAGE, Affordance
from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

#: Wirings of a kitchen, not a house: LLM-Co's need the `layout` capability and Overcooked's prompts (they run in
#: tests/evals/test_llmco_behaviour.py).
ALL_SPECS = sorted(p.stem for p in GRAPHS_DIR.glob("*.yaml")) + sorted(
    f"{folder}/{p.stem}" for folder in ("variants", "ablations") for p in (GRAPHS_DIR / folder).glob("*.yaml"))
KITCHEN_ONLY = {spec for spec in ALL_SPECS if spec.rpartition("/")[2].startswith("llmco")}
SPECS = [spec for spec in ALL_SPECS if spec not in KITCHEN_ONLY]
OPTION = re.compile(r"^([A-Z]{1,2})\. ", re.MULTILINE)
TICKS = 15


def _script() -> Any:
    """Answers a list with a different letter each time (so many kinds of plan run), anything else with a line
    that names things the way the world does."""
    calls: list[int] = []

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        letters = OPTION.findall(str(messages[-1].content))
        calls.append(1)
        if letters:
            return f"Reasoning: try another option\nAnswer: {letters[len(calls) % len(letters)]}"
        return "I go for <apple> (21); the <book> (22) may be in the <chest> (13)."

    return reply


class _Listed:
    """The world's affordances, remembering every option text ever listed."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.texts = inner, set[str]()

    def available(self, belief: Any, message: str | None = None) -> list[Affordance]:
        options = self.inner.available(belief, message)
        self.texts |= {o.text for o in options}
        return options

    def observed(self, belief: Any) -> list[Affordance]:
        """The world's `observed_actions` (REVECA's pool), remembered alike: the world lists these too."""
        options = self.inner.observed(belief)
        self.texts |= {o.text for o in options}
        return options


class CheckedAgent(GraphAgent):
    """A graph agent whose every plan is checked against what the world listed."""

    plans: list[str]
    actions: list[str]

    def reset(self, agent_id: str, env_info: dict[str, Any], seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        assert self.resources is not None and self.resources.kit is not None
        self.listed = _Listed(self.resources.kit.affordances)
        self.resources.affordances = self.resources.kit.affordances = self.listed
        self.plans, self.actions = [], []

    def act(self, observation: Any) -> Any:
        action = super().act(observation)
        assert self.memory is not None
        plan = self.memory.plan
        if plan is not None and (not self.plans or self.plans[-1] != plan.text):
            # a message is every world's option (nodes may write one themselves); anything else must be listed
            assert plan.kind == SEND_MESSAGE or plan.text in self.listed.texts, f"{plan.text} was never listed"
            self.plans.append(plan.text)
        self.actions.append(action.text)
        return action


@pytest.mark.parametrize("with_expert", [False, True], ids=["alone", "with-expert"])
@pytest.mark.parametrize("spec", SPECS)
def test_every_shipped_spec_runs_on_the_toyhouse(spec: str, with_expert: bool) -> None:
    loaded = load_spec(GRAPHS_DIR / f"{spec}.yaml", env="toyhouse")  # the load-time check against the kit
    vectors = not with_expert and "/" not in spec  # the three methods alone also index in Chroma (slower)
    agent = CheckedAgent(loaded, lm=scripted_lm(_script()), vector_memory=vectors)
    team = [agent, make_partner("toyhouse-expert")] if with_expert else [agent]
    env = envs.make("toyhouse", episode="toyhouse/0", num_agents=len(team))
    result = run_episode(env, team, max_steps=TICKS)
    assert result.steps == TICKS or result.success
    assert agent.plans, "the agent never chose a plan"
    assert any(not a.startswith("[wait]") for a in agent.actions), "the agent only waited"
    assert result.per_agent["agent_0"]["invalid_actions"] <= 2
