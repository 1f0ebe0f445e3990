"""REVECA validation: ask only when a partner could have changed the target, wait a bounded time, act on the
answer; and the partner histories (interpolation between sightings) that this judgement rests on."""

from __future__ import annotations

import re
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.cwah.belief import PartnerIntent
from coopgraph.envs.protocol import Affordance, AffordanceGroup, Message
from coopgraph.graphs.compiler import compile_spec, node_context
from coopgraph.graphs.loader import LoadedSpec
from coopgraph.nodes.families.validation import check_plan, parse_answer
from coopgraph.nodes.partner_model import could_reach, estimate, walk_distance
from coopgraph.nodes.reveca_notes import Sighting, reveca_notes
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)
JUICE = "<juice> (310)"  # on the bedroom nightstand in C-WAH test/0, where Alice starts
BEDROOM, KITCHEN, LIVINGROOM = 10, 60, 110


def planner(wanted: str = JUICE, scenario: str = "Bob"):  # noqa: ANN201 - a script function
    """Chooses the candidate naming `wanted` (else the first); in validation picks the scenario naming `scenario`."""

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = messages[-1].content
        options = OPTION.findall(text)
        if "What most likely happened?" in text:
            pick = next((letter for letter, o in options if o.startswith(scenario)), "A")
            return f"Reasoning: judged\nAnswer: {pick}"
        pick = next((letter for letter, o in options if wanted in o), options[0][0] if options else "A")
        return f"Reasoning: closest goal object\nAnswer: {pick}"

    return reply


def _alice(spec: str = "reveca", script: Any = None) -> tuple[GraphAgent, Any, Any]:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    lm = scripted_lm(script or planner())
    agent = GraphAgent(spec, lm=lm)
    agent.reset("alice", env.agent_info("alice"), 0)
    agent.act(observations["alice"])  # step 0: the start-up message
    return agent, lm, observations["alice"]


def _elsewhere(obs: Any, step: int, messages: list[Message] | None = None) -> Any:
    """Alice in the empty living room at `step`: the juice is out of sight since step 0."""
    return obs.model_copy(update={"time": step, "room": "livingroom", "room_id": LIVINGROOM,
                                  "position": (5.555, 11.33), "visible_objects": [], "partners": [],
                                  "messages": messages or []})


def _bob_came_by(agent: GraphAgent) -> None:
    """Bob said he was in the kitchen at step 1 and was seen by the nightstand at step 6."""
    reveca_notes(agent.memory).tracks["bob"] = [Sighting(1, None, KITCHEN, "told"),
                                                Sighting(6, (8.0, 6.0), BEDROOM, "seen")]
    agent.commit_memory()


def _bob_stayed_away(agent: GraphAgent) -> None:
    """Bob said he was in the kitchen at step 1 and was seen there at step 8: no time for a round trip."""
    reveca_notes(agent.memory).tracks["bob"] = [Sighting(1, None, KITCHEN, "told"),
                                                Sighting(8, (16.0, 3.5), KITCHEN, "seen")]
    agent.commit_memory()


def _validation_calls(lm: Any) -> list[str]:
    return [m[-1].content for m, _ in lm.chat_model.calls if "What most likely happened?" in m[-1].content]


def _choice_calls(lm: Any) -> list[str]:
    return [m[-1].content for m, _ in lm.chat_model.calls if "Candidate plans:" in m[-1].content]


# ----------------------------------------------------------------------------- asking or not
def test_asks_the_partner_when_it_could_have_taken_the_target() -> None:
    agent, lm, obs = _alice()
    _bob_came_by(agent)
    action = agent.act(_elsewhere(obs, 10))
    assert action.kind == "send_message"
    assert action.message == f"Bob, have you taken or moved {JUICE} since step 0?"
    assert len(_validation_calls(lm)) == 1 and "Bob: seen in the bedroom at step 6" in _validation_calls(lm)[0]
    pending = reveca_notes(agent.memory).pending
    assert pending is not None and pending.plan.text == f"[gograb] {JUICE}" and agent.memory.plan is None


def test_does_not_ask_when_no_partner_could_have_reached_it_and_spends_no_llm_call() -> None:
    agent, lm, obs = _alice()
    _bob_stayed_away(agent)
    action = agent.act(_elsewhere(obs, 10))
    assert action.kind != "send_message"
    assert not _validation_calls(lm)
    assert agent.memory.plan is not None and agent.memory.plan.text == f"[gograb] {JUICE}"


def test_does_not_ask_when_the_judge_finds_no_change_likely() -> None:
    agent, lm, obs = _alice(script=planner(scenario="Nobody"))
    _bob_came_by(agent)
    action = agent.act(_elsewhere(obs, 10))
    assert len(_validation_calls(lm)) == 1 and action.kind != "send_message"
    assert agent.memory.plan.text == f"[gograb] {JUICE}"


def test_rules_judge_asks_only_when_the_partner_was_around() -> None:
    for setup, asks in ((_bob_came_by, True), (_bob_stayed_away, False)):
        agent, lm, obs = _alice()
        setup(agent)
        later = _elsewhere(obs, 10)
        agent.memory.semantic.update(later)
        ctx = node_context(agent.loaded, "validate", agent.resources, agent.memory)
        ctx.params = ctx.params.model_copy(update={"judge": "rules"})
        plan = Affordance(kind="gograb", group=AffordanceGroup.FETCH, target_id=310, target_name="juice",
                          room_id=BEDROOM)
        out = check_plan({"choice_index": 0, "options": [plan], "observation": later}, ctx)
        assert (out["validation"] == "ask") is asks
        assert not _validation_calls(lm)


def test_always_ask_ablation_asks_even_when_nobody_could_have_come() -> None:
    agent, _, obs = _alice("reveca-alwaysask")
    _bob_stayed_away(agent)
    assert agent.act(_elsewhere(obs, 10)).kind == "send_message"


def test_novalidation_ablation_never_asks() -> None:
    agent, lm, obs = _alice("reveca-novalidation")
    _bob_came_by(agent)
    assert agent.act(_elsewhere(obs, 10)).kind != "send_message" and not _validation_calls(lm)


# ----------------------------------------------------------------------------- waiting and the answer
def _asked(script: Any = None) -> tuple[GraphAgent, Any, Any]:
    agent, lm, obs = _alice(script=script)
    _bob_came_by(agent)
    assert agent.act(_elsewhere(obs, 10)).kind == "send_message"
    return agent, lm, obs


def test_a_confirmed_change_discards_the_target_and_plans_again() -> None:
    agent, lm, obs = _asked()
    assert agent.act(_elsewhere(obs, 11)).kind == "wait"  # the answer cannot be here yet
    yes = Message(sender="bob", text=f"Yes, I took {JUICE} at step 7; I am holding it.", step=12)
    action = agent.act(_elsewhere(obs, 12, [yes]))
    notes = reveca_notes(agent.memory)
    assert notes.discarded == {310: 12}
    assert JUICE not in _choice_calls(lm)[-1].split("Candidate plans:")[1]
    # the new choice is validated in turn: the wine stood next to the juice, so Bob is asked about it too
    assert action.kind == "send_message" and "<wine> (313)" in action.message
    assert notes.pending is not None and notes.pending.target_id == 313


def test_a_denial_runs_the_questioned_plan_without_planning_again() -> None:
    agent, lm, obs = _asked()
    choices, validations = len(_choice_calls(lm)), len(_validation_calls(lm))
    no = Message(sender="bob", text=f"No, I have not touched {JUICE}.", step=12)
    action = agent.act(_elsewhere(obs, 12, [no]))
    assert action.kind == "walk" and agent.memory.plan.text == f"[gograb] {JUICE}"
    # no new planning or validation call (the LLM scorer still rates Bob's message, as it rates every line)
    assert (len(_choice_calls(lm)), len(_validation_calls(lm))) == (choices, validations)
    assert reveca_notes(agent.memory).confirmed[310] == 12


def _with_params(agent: GraphAgent, node_id: str, **params: Any) -> None:
    spec = agent.loaded.spec.model_copy(deep=True)
    spec.nodes[node_id].params = {**spec.nodes[node_id].params, **params}
    agent.graph = compile_spec(LoadedSpec(spec, agent.loaded.path, agent.loaded.marks), checkpointer=agent.checkpointer)


@pytest.mark.parametrize("wait_steps", [0, 2, 4])
def test_silence_ends_the_wait_after_the_bounded_number_of_steps(wait_steps: int) -> None:
    agent, _, obs = _alice()
    _with_params(agent, "ask_partner", wait_steps=wait_steps)
    _bob_came_by(agent)
    assert agent.act(_elsewhere(obs, 10)).kind == "send_message"
    idled = 0
    for step in range(11, 20):
        action = agent.act(_elsewhere(obs, step))
        if action.kind != "wait":
            break
        idled += 1
    assert idled == wait_steps
    assert agent.memory.plan is not None and agent.memory.plan.text == f"[gograb] {JUICE}"


def test_proceeding_while_waiting_walks_at_once_and_drops_the_plan_on_a_yes() -> None:
    agent, lm, obs = _alice()
    _with_params(agent, "await_answer", while_waiting="proceed")
    _bob_came_by(agent)
    assert agent.act(_elsewhere(obs, 10)).kind == "send_message"
    assert agent.act(_elsewhere(obs, 11)).kind == "walk"  # no idling: the questioned plan starts
    assert agent.memory.plan.text == f"[gograb] {JUICE}"
    yes = Message(sender="bob", text=f"Yes, I took {JUICE}.", step=12)
    agent.act(_elsewhere(obs, 12, [yes]))
    assert agent.memory.plan is None or JUICE not in agent.memory.plan.text
    assert any(a.text == f"[gograb] {JUICE}" and a.outcome == "interrupted" for a in agent.memory.episodic.actions)


def test_answers_are_read_leniently_but_only_about_the_target() -> None:
    assert parse_answer(f"No, I have not touched {JUICE}.", 310) == "unchanged"
    assert parse_answer(f"Yes, I moved {JUICE}: it is on <coffeetable> (111) now.", 310) == "changed"
    assert parse_answer("I: Next I will get <juice> (310).", 310) == "changed"
    assert parse_answer("No, I have not touched <wine> (313).", 310) is None


# ----------------------------------------------------------------------------- partner histories
def test_unseen_moves_are_interpolated_between_sightings_and_extrapolated_after() -> None:
    agent, _, obs = _alice()
    belief, notes = agent.memory.semantic, reveca_notes(agent.memory)
    a, b = (2.0, 2.0), (9.0, 6.0)
    notes.tracks["bob"] = [Sighting(2, a, BEDROOM), Sighting(12, b, BEDROOM)]
    total = walk_distance(belief, a, BEDROOM, b, BEDROOM)
    middle = estimate(notes, belief, "bob", 7)
    assert middle.source == "interpolated"
    assert walk_distance(belief, a, BEDROOM, middle.position, BEDROOM) == pytest.approx(total / 2, abs=1e-6)
    assert estimate(notes, belief, "bob", 12).source == "seen"
    assert estimate(notes, belief, "bob", 20).position == b  # no announced subgoal: assumed to stay
    belief.note_partner("bob", intent=PartnerIntent(kind="goexplore", target_id=KITCHEN, step=12))
    later = estimate(notes, belief, "bob", 14)
    assert later.source == "extrapolated"
    moved = walk_distance(belief, b, BEDROOM, later.position, later.room_id)
    assert moved == pytest.approx(2 * belief.config.walk_speed, abs=1e-6)


def test_reachability_needs_time_for_the_way_there_and_back() -> None:
    agent, _, _ = _alice()
    belief, notes = agent.memory.semantic, reveca_notes(agent.memory)
    juice = belief.objects[310]
    place = (juice.position, juice.room_id)
    _bob_stayed_away(agent)
    assert could_reach(notes, belief, "bob", place, 0, 10)[0] is False
    assert could_reach(notes, belief, "bob", place, 0, 60)[0] is True  # long after the last sighting
    _bob_came_by(agent)
    assert could_reach(notes, belief, "bob", place, 0, 10)[0] is True
    notes.tracks.clear()
    assert could_reach(notes, belief, "bob", place, 0, 10) == (True, float("inf"))  # never seen: anything goes
