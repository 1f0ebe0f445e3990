"""REVECA relevance: the rules (reveca-rules) follow the goal, the LLM scorer (reveca) batches, and "none" never
reaches the planner."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import Message
from coopgraph.nodes.families.relevance import message_level, object_level
from coopgraph.nodes.reveca_notes import reveca_notes
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)


def first_option(messages: list[Any], kwargs: dict[str, Any]) -> str:
    options = OPTION.findall(messages[-1].content)
    return f"Reasoning: the first is best\nAnswer: {options[0][0]}" if options else "1: low"


def _noisy(noise: int = 20) -> Any:
    return envs.make("cwah-noisy", episode="test/0", num_agents=2, noise=noise)


def _dummy_labels(env: Any) -> set[str]:
    return {f"<{o.name}> ({o.id})" for o in env.episode.objects if getattr(o, "dummy", False)}


def _choice_prompts(lm: Any) -> list[str]:
    return [msgs[-1].content for msgs, _ in lm.chat_model.calls if "Candidate plans:" in msgs[-1].content]


def _first_step(spec: str | Path, script: Any, env: Any) -> tuple[GraphAgent, Any, Any]:
    lm = scripted_lm(script)
    agent = GraphAgent(spec, lm=lm)
    observations, _ = env.reset(seed=0)
    agent.reset("alice", env.agent_info("alice"), 0)
    agent.act(observations["alice"])
    return agent, lm, observations["alice"]


def test_rules_rate_goal_objects_strong_containers_medium_furniture_low_dummies_none() -> None:
    env = _noisy()
    agent, _, obs = _first_step("reveca-rules", first_option, env)
    belief, notes = agent.memory.semantic, reveca_notes(agent.memory)
    by_name = {o.name: notes.relevance[o.id] for o in obs.visible_objects}
    assert by_name["pudding"] == by_name["juice"] == "strong"  # goal classes
    assert by_name["cabinet"] == "medium"  # closed: may hold a goal object
    assert by_name["desk"] == "low"
    dummies = [o for o in obs.visible_objects if f"<{o.name}> ({o.id})" in _dummy_labels(env)]
    assert dummies and all(notes.relevance[o.id] == "none" for o in dummies)
    target = next(p.target_id for p in belief.goal)
    stub = type("Seen", (), {"id": target, "name": "coffeetable", "kind": "surface"})()
    assert object_level(stub, belief) == "strong"  # the goal's destination


def test_a_finished_subgoal_drops_its_objects_to_low() -> None:
    env = _noisy()
    agent, _, obs = _first_step("reveca-rules", first_option, env)
    belief = agent.memory.semantic
    pudding = next(o for o in obs.visible_objects if o.name == "pudding")
    target = next(p for p in belief.goal if p.object_name == "pudding").target_id
    belief.note_object(999, "pudding", "item", None, on=target)  # a partner reports one pudding in place
    assert object_level(belief.objects[pudding.id], belief) == "low"


def test_message_levels_follow_what_they_name() -> None:
    env = _noisy()
    agent, _, obs = _first_step("reveca-rules", first_option, env)
    belief, notes = agent.memory.semantic, reveca_notes(agent.memory)
    dummy = next(o for o in obs.visible_objects if f"<{o.name}> ({o.id})" in _dummy_labels(env))
    assert message_level(f"I see {dummy.label}.", belief, notes) == "none"
    assert message_level("I found <apple> (777) on <kitchentable> (61).", belief, notes) == "strong"
    assert message_level("Have you moved <book> (1)?", belief, notes) == "strong"
    assert message_level("Hello there.", belief, notes) == "low"


def test_vector_entries_carry_the_level_and_recall_skips_none() -> None:
    env = _noisy()
    agent, _, obs = _first_step("reveca-rules", first_option, env)
    dummy = next(o for o in obs.visible_objects if f"<{o.name}> ({o.id})" in _dummy_labels(env))
    vector = agent.memory.vector
    everything = vector.recall(dummy.name, k=50, exclude_relevance=())
    assert any(dummy.id in e.object_ids and e.relevance == "none" for e in everything)
    assert not any(dummy.id in e.object_ids for e in vector.recall(dummy.name, k=50))
    assert all(e.relevance is not None for e in everything)  # REVECA stores nothing unrated


def test_llm_scorer_rates_everything_new_in_one_call_and_falls_back_to_rules() -> None:
    spec = "reveca"  # the published wiring rates with the LLM
    rating_calls: list[str] = []

    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = messages[-1].content
        if "Rate every line" in text:
            rating_calls.append(text)
            return "1: none\n2: strong"  # rates two lines only; the rest falls back to the rules
        return first_option(messages, kwargs)

    env = _noisy()
    agent, _, obs = _first_step(spec, model, env)
    assert len(rating_calls) == 1
    listed = re.findall(r"^(\d+)\. (<\w+> \(\d+\))", rating_calls[0], re.MULTILINE)
    assert len(listed) >= len(obs.visible_objects)  # every new line in one batch
    notes, belief = reveca_notes(agent.memory), agent.memory.semantic
    first_id, second_id = (int(re.search(r"\((\d+)\)", label).group(1)) for _, label in listed[:2])
    assert notes.relevance[first_id] == "none" and notes.relevance[second_id] == "strong"
    third_id = int(re.search(r"\((\d+)\)", listed[2][1]).group(1))
    assert notes.relevance[third_id] == object_level(belief.objects[third_id], belief)


def test_dummy_objects_never_reach_the_planning_prompt_but_do_without_relevance() -> None:
    env = _noisy(20)
    dummies = _dummy_labels(env)
    prompts: dict[str, list[str]] = {}
    for spec in ("reveca-rules", "reveca-norelevance"):
        lm = scripted_lm(first_option)
        run_episode(env, [GraphAgent(spec, lm=lm), make_partner("mhp")], max_steps=25)
        prompts[spec] = _choice_prompts(lm)
    assert prompts["reveca-rules"], "REVECA never planned"
    for prompt in prompts["reveca-rules"]:
        assert not [label for label in dummies if label in prompt]
    assert any(label in prompt for prompt in prompts["reveca-norelevance"] for label in dummies)


def test_a_message_about_dummies_only_stays_out_of_the_prompt() -> None:
    env = _noisy()
    lm = scripted_lm(first_option)
    agent = GraphAgent("reveca-rules", lm=lm)
    observations, _ = env.reset(seed=0)
    agent.reset("alice", env.agent_info("alice"), 0)
    obs = observations["alice"]
    dummy = next(o for o in obs.visible_objects if f"<{o.name}> ({o.id})" in _dummy_labels(env))
    chatter = f"Look, {dummy.label} is here."
    useful = "I found <apple> (777) on <kitchentable> (61)."
    told = [Message(sender="bob", text=chatter, step=0), Message(sender="bob", text=useful, step=0)]
    agent.act(obs.model_copy(update={"messages": told}))  # start-up message goes out
    agent.act(obs.model_copy(update={"time": 1, "messages": []}))  # then it plans
    prompt = _choice_prompts(lm)[-1]
    assert useful in prompt and chatter not in prompt
