"""REVECA as the paper tests it (`reveca`): the LLM's relevance rating decides whether a dummy becomes a
candidate; the reference code's ranking; the R=3/R=5 level sets; validation of every non-put plan aimed at
another room; the planner's communication history filtered by relevance, not cut to the last 3 lines; and
messages phrased by the LLM. The small-model wiring (`reveca-rules`) is the contrast where it differs."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.protocol import Affordance, AffordanceGroup
from coopgraph.graphs.compiler import node_context
from coopgraph.graphs.loader import load_spec
from coopgraph.memory.levels import LEVEL_SETS
from coopgraph.nodes.candidates import CandidateParams, level_bonus, rank
from coopgraph.nodes.families.validation import check_plan
from coopgraph.nodes.focus import FocusParams, dialogue_lines
from coopgraph.nodes.reveca_notes import Sighting, message_key, reveca_notes
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)
RATED = re.compile(r"^(M?\d+)\. (.*)$", re.MULTILINE)
LABEL = re.compile(r"<\w+> \(\d+\)")
BEDROOM, LIVINGROOM = 10, 110


def rater(dummies: set[str], dummy_level: str, other_level: str = "low"):  # noqa: ANN201 - a script function
    """A scripted LLM: rates every line naming a dummy `dummy_level`, the rest `other_level`; picks option A."""

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = messages[-1].content
        if "Rate every line" in text:
            return "\n".join(f"{tag}: {dummy_level if set(LABEL.findall(line)) & dummies else other_level}"
                             for tag, line in RATED.findall(text))
        return "Reasoning: the first\nAnswer: A" if OPTION.search(text) else "1: low"

    return reply


def _agent(spec: str, script: Any, env: Any) -> tuple[GraphAgent, Any, Any]:
    observations, _ = env.reset(seed=0)
    lm = scripted_lm(script)
    agent = GraphAgent(spec, lm=lm)
    agent.reset("alice", env.agent_info("alice"), 0)
    agent.act(observations["alice"])  # step 0: rates what it sees, sends the start-up message
    return agent, lm, observations["alice"]


def _dummies(env: Any) -> set[str]:
    return {f"<{o.name}> ({o.id})" for o in env.episode.objects if getattr(o, "dummy", False)}


def _candidates(lm: Any) -> str:
    prompts = [m[-1].content for m, _ in lm.chat_model.calls if "Candidate plans:" in m[-1].content]
    assert prompts, "the agent never planned"
    return prompts[-1].split("Candidate plans:")[1]


# ----------------------------------------------------------------------------- dummies and relevance
@pytest.mark.parametrize(("level", "listed"), [("strong", True), ("none", False)])
def test_a_dummy_becomes_a_candidate_unless_the_llm_rates_it_none(level: str, listed: bool) -> None:
    env = envs.make("cwah-noisy", episode="test/0", num_agents=2, noise=20)
    dummies = _dummies(env)
    agent, lm, obs = _agent("reveca", rater(dummies, level), env)
    seen = {o.label for o in obs.visible_objects} & dummies
    assert seen, "no dummy in view at the start"
    reveca_notes(agent.memory).tracks.clear()  # nobody else around: every task is "mine" in the ranking
    agent.act(obs.model_copy(update={"time": 1, "partners": [], "messages": []}))
    offered = set(LABEL.findall(_candidates(lm)))
    assert bool(offered & dummies) is listed
    assert {reveca_notes(agent.memory).relevance[int(d.split("(")[1][:-1])] for d in seen} == {level}


def test_the_rules_variant_never_offers_a_dummy_whatever_the_rating() -> None:
    env = envs.make("cwah-noisy", episode="test/0", num_agents=2, noise=20)
    agent, lm, obs = _agent("reveca-rules", rater(_dummies(env), "strong"), env)
    agent.act(obs.model_copy(update={"time": 1, "partners": [], "messages": []}))
    assert not set(LABEL.findall(_candidates(lm))) & _dummies(env)  # goal-only list, rules rating


# ----------------------------------------------------------------------------- the reference's ranking
def _ranked(agent: GraphAgent, **params: Any) -> list[tuple[Any, Any]]:
    belief = agent.memory.semantic
    options = agent.resources.affordances.available(belief)
    options += [o for o in agent.resources.affordances.observed(belief) if o.text not in {x.text for x in options}]
    return rank(belief, reveca_notes(agent.memory), options, 1, CandidateParams(**{"order": "reference", **params}))


def test_reference_ranking_puts_my_closer_tasks_first_at_any_level_by_efficiency() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    agent, _, obs = _agent("reveca", rater(set(), "low", "low"), env)
    notes, belief = reveca_notes(agent.memory), agent.memory.semantic
    notes.relevance.update({310: "strong", 313: "strong", 304: "strong"})
    notes.tracks["bob"] = [Sighting(1, (3.5, 7.2), obs.room_id, "seen")]  # Bob: by the nightstand
    ranked = _ranked(agent)
    sides = [c.partner_closer for _, c in ranked]
    assert sides == sorted(sides)  # every task I am closer to comes before every task Bob is closer to
    first_bobs = sides.index(True)
    assert ranked[first_bobs][1].relevance == "strong"  # the juice or the wine, strong yet behind ...
    assert any(c.relevance != "strong" for _, c in ranked[:first_bobs])  # ... tasks of a lower level that are mine
    for side in (False, True):
        eff = [c.efficiency for _, c in ranked if c.partner_closer is side]
        assert eff == sorted(eff, reverse=True)
    for option, candidate in ranked:  # efficiency = 1/(d+1) + the level's bonus, d in a straight line
        target = belief.objects[option.target_id].position if option.group != AffordanceGroup.EXPLORE \
            else belief.rooms[option.target_id].center
        d = math.hypot(belief.position[0] - target[0], belief.position[1] - target[1])
        bonus = {"strong": 1000, "medium": 100, "low": 10, "none": 1}[candidate.relevance]
        assert candidate.efficiency == pytest.approx(bonus + 1 / (d + 1))


def test_reference_ranking_keeps_none_tasks_as_fillers_and_the_rules_order_drops_them() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    agent, _, _ = _agent("reveca", rater(set(), "low", "low"), env)
    reveca_notes(agent.memory).relevance[304] = "none"  # the pudding rated "none"
    ranked = _ranked(agent)
    pudding = next(c for o, c in ranked if o.target_id == 304)
    assert pudding.relevance == "none" and all(c.efficiency > pudding.efficiency for _, c in ranked
                                               if c.relevance != "none" and c.partner_closer == pudding.partner_closer)
    assert 304 not in {o.target_id for o, _ in _ranked(agent, order="relevance_first")}


# ----------------------------------------------------------------------------- R=3 and R=5
@pytest.mark.parametrize("r", [3, 5])
def test_r_ablations_load_and_rate_with_their_level_sets(r: int) -> None:
    spec = load_spec(f"reveca-r{r}").spec
    assert spec.nodes["score_relevance"].params["levels"] == r == spec.nodes["rank_candidates"].params["levels"]
    levels = LEVEL_SETS[r]
    assert len(levels) == r and levels[-1] == "none"
    top, odd = levels[0], ("low" if r == 3 else "very strong")
    prompts: list[str] = []

    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = messages[-1].content
        if "Rate every line" in text:
            prompts.append(text)
            return f"1: {top}\n2: {odd}"  # line 2: a level outside R=3's set (or R=5's very top)
        return "Reasoning: the first\nAnswer: A" if OPTION.search(text) else "1: low"

    agent, _, _ = _agent(f"reveca-r{r}", model, envs.make("cwah", episode="test/0", num_agents=2))
    system = agent.lm.chat_model.calls[0][0][0].content
    assert ", ".join(levels) in system
    first, second = (int(re.search(r"\((\d+)\)", line).group(1)) for line in RATED.findall(prompts[0])[0:2]
                     for line in [line[1]])
    notes = reveca_notes(agent.memory)
    assert notes.relevance[first] == top
    assert notes.relevance[second] in levels and (r == 5) is (notes.relevance[second] == "very strong")
    assert [level_bonus(level, levels) for level in levels] == [10.0 ** i for i in reversed(range(r))]


# ----------------------------------------------------------------------------- validation
def _validate(spec: str, plan: Affordance) -> str:
    agent, _, obs = _agent(spec, rater(set(), "low"), envs.make("cwah", episode="test/0", num_agents=2))
    reveca_notes(agent.memory).tracks["bob"] = [Sighting(1, (8.0, 6.0), BEDROOM, "seen")]
    later = obs.model_copy(update={"time": 10, "room": "livingroom", "room_id": LIVINGROOM, "position": (5.555, 11.33),
                                   "visible_objects": [], "partners": [], "messages": []})
    agent.memory.semantic.update(later)
    ctx = node_context(agent.loaded, "validate", agent.resources, agent.memory)
    ctx.params = ctx.params.model_copy(update={"judge": "rules"})
    return check_plan({"choice_index": 0, "options": [plan], "observation": later}, ctx)["validation"]


def _container_in_bedroom() -> Affordance:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    box = next(o for o in observations["alice"].visible_objects if o.kind == "container")
    return Affordance(kind="gocheck", group=AffordanceGroup.INSPECT, target_id=box.id, target_name=box.name,
                      room_id=BEDROOM)


def test_a_check_in_another_room_is_validated_as_the_reference_does_and_not_by_the_rules_variant() -> None:
    plan = _container_in_bedroom()
    assert _validate("reveca", plan) == "ask"  # Bob was by the nightstand since: ask him first
    assert _validate("reveca-rules", plan) == "skipped"  # the variant validates grabs only
    here = plan.model_copy(update={"room_id": LIVINGROOM})
    assert _validate("reveca", here) == "skipped"  # a target in my own room needs no question


# ----------------------------------------------------------------------------- the planner's dialogue
def test_the_planners_dialogue_is_the_relevant_history_not_the_last_three_lines() -> None:
    lines = [("bob", f"I found <apple> ({700 + i}) in the kitchen.", i + 1) for i in range(5)]
    shown = {}
    for spec in ("reveca", "reveca-rules"):
        agent, _, _ = _agent(spec, rater(set(), "low"), envs.make("cwah", episode="test/0", num_agents=2))
        notes = reveca_notes(agent.memory)
        for sender, text, step in lines:
            agent.memory.episodic.add_message(sender, text, step)
            notes.message_relevance[message_key(sender, step, text)] = "medium"
        sender, text, step = lines[3]
        notes.message_relevance[message_key(sender, step, text)] = "none"
        params = node_context(agent.loaded, "focus", agent.resources, agent.memory).params
        shown[spec] = dialogue_lines(agent.memory, notes, FocusParams(**params.model_dump()))
    assert [t for t in shown["reveca"] if "<apple>" in t] == \
        [f'bob: "{t}"' for i, (_, t, _) in enumerate(lines) if i != 3]  # oldest kept, the "none" line left out
    assert [t for t in shown["reveca-rules"] if "<apple>" in t] == [f'bob: "{lines[2][1]}"', f'bob: "{lines[4][1]}"']


# ----------------------------------------------------------------------------- messages
def test_messages_are_phrased_by_the_llm_and_a_phrasing_that_drops_a_label_is_not_sent() -> None:
    for keep_labels in (True, False):
        said: list[str] = []

        def model(messages: list[Any], kwargs: dict[str, Any], keep: bool = keep_labels, said: list = said) -> str:
            text = messages[-1].content
            if "My message:" not in text:
                return "1: low"
            notes = re.search(r"^Notes: (.*)$", text, re.MULTILINE).group(1)
            said.append("Hello Bob! Here: " + ", ".join(LABEL.findall(notes)) if keep else "Hello Bob!")
            return said[-1]

        env = envs.make("cwah", episode="test/0", num_agents=2)
        observations, _ = env.reset(seed=0)
        agent = GraphAgent("reveca", lm=scripted_lm(model))
        agent.reset("alice", env.agent_info("alice"), 0)
        action = agent.act(observations["alice"])
        assert action.kind == "send_message" and len(said) == 1
        assert (action.message == said[0]) is keep_labels
        assert keep_labels or action.message.startswith("Hi, this is Alice. I am in the <bedroom> (10).")


# ----------------------------------------------------------------------------- the worlds
@pytest.mark.parametrize("world", ["cwah", "cwah-noisy", "toyhouse"])
def test_the_faithful_wiring_plays_each_world(world: str) -> None:
    episode = "toyhouse/0" if world == "toyhouse" else "test/0"
    extra = {"noise": 20} if world == "cwah-noisy" else {}
    env = envs.make(world, episode=episode, num_agents=2, **extra)
    lm = scripted_lm(rater(set(), "medium"))
    result = run_episode(env, [GraphAgent("reveca", lm=lm), GraphAgent("reveca", lm=scripted_lm(rater(set(), "low")))],
                         max_steps=20)
    assert result.steps > 0
    assert any("Rate every line" in m[-1].content for m, _ in lm.chat_model.calls)  # the LLM rated relevance


def test_the_observed_pool_offers_every_free_item_but_never_one_already_in_place() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    agent, _, _ = _agent("reveca", rater(set(), "low"), env)
    belief = agent.memory.semantic
    target = next(p for p in belief.goal if p.object_name == "pudding").target_id
    belief.note_object(998, "pudding", "item", BEDROOM, on=target)  # a pudding in place: satisfied
    belief.note_object(999, "pudding", "item", BEDROOM, on=11)  # a spare one on the desk
    belief.note_object(997, "towel", "item", BEDROOM, on=11)  # a class the task never asks for
    offered = {o.target_id for o in agent.resources.affordances.observed(belief)}
    listed = {o.target_id for o in agent.resources.affordances.available(belief)}
    assert 997 in offered and 997 not in listed  # only the REVECA pool offers it
    assert 998 not in offered | listed
    assert 999 in offered | listed


def test_the_faithful_wiring_samples_as_the_paper_and_the_rules_variant_as_the_setting() -> None:
    from coopgraph.graphs.loader import load_spec

    faithful, rules = load_spec("reveca").spec, load_spec("reveca-rules").spec
    assert faithful.llm.options() == {"temperature": 0.7, "top_p": 1.0} and faithful.llm.max_tokens == 256
    assert rules.llm.options() == {} and rules.llm.max_tokens is None
    for node in ("choose_action", "validate"):
        assert faithful.nodes[node].params["reasoning"] == "free"
        assert rules.nodes[node].params["reasoning"] == "line"
