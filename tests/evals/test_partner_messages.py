"""CaPo and REVECA as published read a partner's message through the LLM only: what it states reaches neither the
belief (so neither the action list nor CaPo's progress events) while the words reach the prompts; the small-model
variants that keep the rule-based reader (capo-lite, reveca-rules) fold the same words into the belief."""

from __future__ import annotations

import re
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.protocol import Message
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)
TOLD_ID = 777


def _reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """Any prompt answered plainly: a plan for a designer, agreement, "fits", the first option, low relevance."""
    text = messages[-1].content
    if text.rstrip().endswith("Meta-plan:"):
        return "Alice: explore the kitchen\nBob: explore the bathroom"
    if OPTION.search(text):
        return "Reasoning: fine\nAnswer: A"
    return "1: low"


def _after_a_partners_message(spec: str) -> tuple[GraphAgent, Any, Tracer, int, str]:
    """The agent's first two steps; on the second, the partner says it found a goal object and emptied a
    container the agent can see."""
    lm = scripted_lm(_reply)
    tracer = Tracer(None)
    agent = GraphAgent(spec, lm=lm, vector_memory=False)
    agent.set_tracer(tracer)
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    agent.reset("alice", env.agent_info("alice"), 0)
    first = observations["alice"]
    agent.act(first)
    container = next(o for o in first.visible_objects if o.kind == "container")
    surface = next(o for o in first.visible_objects if o.kind == "surface")  # a place the agent knows
    goal = next(iter(agent.memory.semantic.goal)).object_name
    text = (f"I found <{goal}> ({TOLD_ID}) on <{surface.name}> ({surface.id}). I checked <{container.name}> "
            f"({container.id}), it is empty.")
    agent.act(first.model_copy(update={"time": 1, "messages": [Message(sender="bob", text=text, step=1)]}))
    return agent, lm, tracer, container.id, text


def _told_progress(tracer: Tracer) -> list[str]:
    return [e for event in tracer.events if event["type"] == "progress" for e in event["events"]
            if f"({TOLD_ID})" in e]


@pytest.mark.parametrize("spec", ["capo", "reveca"])
def test_the_published_wiring_leaves_a_partners_message_to_the_llm(spec: str) -> None:
    agent, lm, tracer, container_id, text = _after_a_partners_message(spec)
    belief = agent.memory.semantic
    assert TOLD_ID not in belief.objects and container_id not in belief.checked_containers
    assert _told_progress(tracer) == []  # no progress event from what a partner said
    assert any(line.text == text for line in agent.memory.episodic.messages)  # the words are kept for the LLM
    prompts = [msgs[-1].content for msgs, _ in lm.chat_model.calls]
    assert all(f"({TOLD_ID})" not in p.split("Available actions:")[-1] for p in prompts if "Available actions:" in p)


@pytest.mark.parametrize("spec", ["capo-lite", "reveca-rules"])
def test_a_variant_with_the_rule_based_reader_folds_the_message_into_its_belief(spec: str) -> None:
    agent, _, tracer, container_id, _ = _after_a_partners_message(spec)
    belief = agent.memory.semantic
    assert TOLD_ID in belief.objects and container_id in belief.checked_containers
    if spec == "capo-lite":
        assert _told_progress(tracer), "a told goal object is progress to capo-lite"
