"""The human member: it offers exactly the kit's affordances, runs the chosen plan with the skill book, sends
messages at the world's cost and limit, waits when given no answer, and traces every decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph import envs
from coopgraph.envs.registry import agent_kit
from coopgraph.play.session import PlayError, human_agent, play_episode, visible_event
from coopgraph.play.turn import Answer, Turn
from coopgraph.record.trace_file import read_events
from coopgraph.runtime.teams import UnknownMemberError, make_team
from tests.play.seats import ScriptedSeat


def _first_turn_options() -> list[str]:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    kit = agent_kit("cwah", env.agent_info("alice"))
    kit.belief.update(observations["alice"])
    return [o.text for o in kit.affordances.available(kit.belief)]


def test_the_first_turn_lists_the_kits_affordances_and_the_agents_view(tmp_path: Path) -> None:
    seat = ScriptedSeat()
    play_episode("cwah", "test/0", ["human", "mhp"], "local", seat, tmp_path, max_steps=5)
    first = seat.turns[0]
    assert first.options == _first_turn_options()
    assert first.agent == "alice" and first.step == 0 and first.message_limit == 500
    assert any("You are in <bedroom> (10)" in line for line in first.view)


def test_choices_messages_and_idles_are_traced_as_plans(tmp_path: Path) -> None:
    long = "x" * 600
    seat = ScriptedSeat([Answer(message="<b>hi</b> I check the kitchen"), None, Answer(message=long), Answer(choice=2)])
    result = play_episode("cwah", "test/0", ["human", "mhp"], "local", seat, tmp_path, max_steps=12)
    events = read_events(result["trace_path"])
    plans = [e for e in events if e["type"] == "plan" and e["agent"] == "alice"]
    assert plans[0]["plan"] == '[send_message] <"<b>hi</b> I check the kitchen">' and plans[0]["human"] is True
    assert plans[1]["plan"] == "[wait]" and plans[1]["idle"] == "no answer"
    assert plans[2]["cut"] is True and plans[2]["chars"] == 500
    assert plans[3]["choice"] == 2
    sent = [m for m in result["messages"] if m["sender"] == "alice"]
    assert sent[0]["text"] == "<b>hi</b> I check the kitchen" and len(sent[1]["text"]) == 500
    steps = [e for e in events if e["type"] == "env_step"]
    assert steps[0]["agents"]["alice"]["action"].startswith("[send_message]")  # a message costs a step in C-WAH
    assert steps[1]["agents"]["alice"]["action"] == "[wait]"


def test_the_partners_messages_reach_the_person(tmp_path: Path) -> None:
    seat = ScriptedSeat()
    play_episode("cwah", "test/0", ["human", "mhp"], "local", seat, tmp_path, max_steps=20)
    heard = [m for t in seat.turns for m in t.messages if m.sender == "bob"]
    assert heard, "MHP reports what it saw; the person's later turns show it"
    assert any(e["type"] == "message" and e["agent"] == "bob" for e in seat.events)


def test_the_seat_hears_no_truth() -> None:
    step = {"type": "env_step", "step": 3, "agents": {"bob": {"position": [1, 2], "holding": ["<apple> (1)"]}}}
    assert visible_event(step, "alice", False) == {"type": "step", "step": 3}
    plan = {"type": "plan", "agent": "bob", "step": 3, "plan": "[gograb] <apple> (1)"}
    assert visible_event(plan, "alice", False) == {"type": "plan", "agent": "bob", "step": 3, "plan": None}
    assert visible_event(plan, "alice", True)["plan"] == "[gograb] <apple> (1)"
    assert visible_event({"type": "llm_call", "agent": "bob", "prompt": "..."}, "alice", True) is None


def test_a_team_needs_exactly_one_person() -> None:
    with pytest.raises(PlayError, match="exactly one 'human'"):
        human_agent(["mhp", "mhp"], ["alice", "bob"])
    with pytest.raises(PlayError, match="got 2"):
        human_agent(["human", "human"], ["alice", "bob"])
    with pytest.raises(UnknownMemberError, match="only through `coopgraph play`"):
        make_team(["human", "mhp"])


def test_answers_outside_the_turn_are_refused() -> None:
    turn = Turn(env="cwah", agent="alice", agent_name="Alice", step=0, horizon=10, goal="", view=[],
                options=["[goexplore] <kitchen> (60)"], message_limit=10)
    assert Answer(choice=2).problem(turn) == "option 2 is not listed (1-1)"
    assert Answer(choice=0).problem(turn) is not None
    assert Answer(move="north").problem(turn) is not None
    assert Answer(message="  ").problem(turn) == "an empty message"
    assert Answer(choice=1, message="hi").problem(turn) is not None
    assert Answer(choice=1).problem(turn) is None


def test_a_typed_message_reaches_a_graph_partners_dialogue(tmp_path: Path) -> None:
    from coopgraph.testing import scripted_lm

    seat = ScriptedSeat([Answer(message="the wine is on the <nightstand> (12)")])
    result = play_episode("cwah", "test/0", ["human", "coela"], lambda: scripted_lm(["A"]), seat, tmp_path,
                          max_steps=6)
    calls = [e for e in read_events(result["trace_path"]) if e["type"] == "llm_call" and e["agent"] == "bob"]
    assert any("the wine is on the <nightstand> (12)" in str(c["prompt"]) for c in calls)
    assert result["deterministic"] is False  # a person's run is never a deterministic replicate
