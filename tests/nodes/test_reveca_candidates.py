"""REVECA's K candidates. The order pinned here is `reveca-rules`' (`order: relevance_first`: relevance, then who
is closer, then walking distance); the reference code's order that `reveca` uses is pinned in
test_reveca_faithful.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.nodes.candidates import CandidateParams, rank
from coopgraph.nodes.partner_model import walk_distance
from coopgraph.nodes.reveca_notes import RANK, Sighting, reveca_notes
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (\[\w+\] <\w+> \(\d+\))", re.MULTILINE)


def first_option(messages: list[Any], kwargs: dict[str, Any]) -> str:
    options = OPTION.findall(messages[-1].content)
    return f"Reasoning: the first is best\nAnswer: {options[0][0]}" if options else "1: low"


def _agent(spec: str = "reveca") -> tuple[GraphAgent, Any, Any]:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    lm = scripted_lm(first_option)
    agent = GraphAgent(spec, lm=lm)
    agent.reset("alice", env.agent_info("alice"), 0)
    agent.act(observations["alice"])  # step 0: rates what it sees, sends the start-up message
    return agent, lm, observations["alice"]


def _ranked(agent: GraphAgent, step: int = 1, **params: Any) -> list[tuple[Any, Any]]:
    """The ranking with `params` (default: reveca-rules' order); with `pool="observed"` the observed fetches too."""
    belief = agent.memory.semantic
    options = agent.resources.affordances.available(belief)
    settings = CandidateParams(**{"order": "relevance_first", **params})
    if settings.pool == "observed":
        listed = {o.text for o in options}
        options += [o for o in agent.resources.affordances.observed(belief) if o.text not in listed]
    return rank(belief, reveca_notes(agent.memory), options, step, settings)


def test_candidates_are_ranked_by_relevance_then_my_distance() -> None:
    agent, _, _ = _agent()
    ranked = _ranked(agent)
    levels = [RANK[c.relevance] for _, c in ranked]
    assert levels == sorted(levels, reverse=True)  # strong before medium before low
    assert {o.kind for o, c in ranked if c.relevance == "strong"} == {"gograb"}
    for level in set(levels):  # within a level: nearest first (nobody else is known to be closer)
        distances = [c.my_distance for _, c in ranked if RANK[c.relevance] == level]
        assert distances == sorted(distances)


def test_a_partner_closer_to_a_goal_object_pushes_it_down_its_level() -> None:
    agent, _, obs = _agent()
    notes = reveca_notes(agent.memory)
    before = [o.target_id for o, c in _ranked(agent) if c.relevance == "strong"]
    assert before == [310, 313, 304]  # juice and wine on the nightstand (5 m), pudding on the desk (9 m)
    notes.tracks["bob"] = [Sighting(1, (3.5, 7.2), obs.room_id, "seen")]  # Bob: nearer the nightstand than me
    strong = [(o.target_id, c) for o, c in _ranked(agent) if c.relevance == "strong"]
    assert [t for t, _ in strong] == [304, 310, 313]
    assert [c.partner_closer for _, c in strong] == [False, True, True]
    assert strong[1][1].partner_distances["bob"] < strong[1][1].my_distance
    assert not any(c.partner_closer for _, c in _ranked(agent, partner_info=False))


def test_without_spatial_information_order_is_relevance_then_the_environments_order() -> None:
    agent, _, _ = _agent()
    ranked = _ranked(agent, spatial=False)
    options = agent.resources.affordances.available(agent.memory.semantic)
    by_level: dict[int, list[str]] = {}
    for option, candidate in ranked:
        assert candidate.my_distance is None and " m" not in candidate.note
        by_level.setdefault(RANK[candidate.relevance], []).append(option.text)
    for texts in by_level.values():
        assert texts == [o.text for o in options if o.text in texts]


def test_ranked_distances_are_walking_distances() -> None:
    agent, _, _ = _agent()
    belief = agent.memory.semantic
    option, candidate = _ranked(agent)[0]
    obj = belief.objects[option.target_id]
    assert candidate.my_distance == pytest.approx(
        walk_distance(belief, belief.position, belief.room_id, obj.position, obj.room_id))


@pytest.mark.parametrize(("spec", "k"), [("reveca", 3), ("reveca-k2", 2), ("reveca-k4", 4), ("reveca-rules", 3)])
def test_the_planner_sees_exactly_k_candidates_with_their_notes(spec: str, k: int) -> None:
    agent, lm, obs = _agent(spec)
    agent.act(obs.model_copy(update={"time": 1}))
    prompt = next(m[-1].content for m, _ in lm.chat_model.calls if "Candidate plans:" in m[-1].content)
    listed = OPTION.findall(prompt)
    assert len(listed) == k
    params = agent.loaded.spec.nodes["rank_candidates"].params
    expected = [o.text for o, _ in _ranked(agent, k=k, order=params["order"], pool=params["pool"])][:k]
    assert [text for _, text in listed] == expected
    assert "(strong; me " in prompt  # level and distances are shown next to the letters
    assert agent.memory.plan is not None and agent.memory.plan.text == expected[0]
