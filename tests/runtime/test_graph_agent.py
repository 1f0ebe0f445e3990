"""GraphAgent's LM: each episode runs on a sibling of the given CoopLM, writing the agent's own trace."""

from __future__ import annotations

import pytest

from coopgraph import envs
from coopgraph.llm.factory import build_stack
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.chat import ScriptedChatModel


def test_an_lm_that_cannot_take_the_agents_trace_is_refused() -> None:
    """A bare ChatLM answers calls but cannot be given the agent's tracer: it used to be shared silently, its
    calls missing from the agent's trace and usage; now the agent says what it needs."""
    bare = build_stack(ScriptedChatModel(script=["Answer: A"]), backend="fake", model="scripted").top
    with pytest.raises(TypeError, match="CoopLM"):
        GraphAgent("coela", lm=bare)  # type: ignore[arg-type]  # the wrong LM on purpose


def test_each_episode_runs_on_a_sibling_lm_writing_the_agents_trace() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    env.reset(seed=0)
    lm = scripted_lm(["Reasoning: go\nAnswer: A"])
    agent = GraphAgent("coela", lm=lm, vector_memory=False)
    first, second = Tracer(None), Tracer(None)
    agent.set_tracer(first)
    agent.reset("alice", env.agent_info("alice"), 0)
    assert agent.resources is not None
    episode_lm = agent.resources.lm
    assert episode_lm is not lm and episode_lm.chat_model is lm.chat_model  # shares the model and its cache
    assert episode_lm.tracer is first
    agent.set_tracer(second)  # a tracer set mid-episode reaches the LM the nodes call
    assert agent.resources.lm.tracer is second
