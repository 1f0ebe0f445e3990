"""Progress detection on a real C-WAH belief, and the re-planning it triggers in a CaPo agent."""

from __future__ import annotations

import re
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.protocol import Message, ObjectInfo, Observation
from coopgraph.nodes.families.progress import DetectParams, detect
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)
APPLE = ObjectInfo(id=305, name="apple", kind="item", room="kitchen", room_id=60, position=(1.0, 1.0))
CUPCAKE_PLACED = ObjectInfo(id=300, name="cupcake", kind="item", room="livingroom", room_id=110,
                            position=(2.0, 2.0), on=111)


def _start() -> tuple[Any, Observation, Any]:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    return env, observations["alice"], envs.agent_kit("cwah", env.agent_info("alice"))


def _moved(obs: Observation, step: int, room: str, room_id: int, visible: list[ObjectInfo], **more: Any) -> Observation:
    return obs.model_copy(update={"time": step, "room": room, "room_id": room_id, "visible_objects": visible, **more})


def _detect(kit: Any, obs: Observation) -> tuple[list[str], list[str]]:
    kit.belief.update(obs)
    return detect(kit.belief, obs, DetectParams())


def test_first_sighting_is_the_baseline_and_a_new_room_is_not_progress() -> None:
    _, obs, kit = _start()
    assert _detect(kit, obs) == ([], [])  # goal objects seen at the start are the baseline
    assert _detect(kit, _moved(obs, 1, "bathroom", 160, [])) == ([], [])


def test_a_goal_object_found_is_progress_and_told_ones_are_not_mine_to_report() -> None:
    _, obs, kit = _start()
    _detect(kit, obs)
    events, own = _detect(kit, _moved(obs, 1, "kitchen", 60, [APPLE]))
    assert events == own == ["found <apple> (305) in the kitchen"]
    assert _detect(kit, _moved(obs, 2, "kitchen", 60, [APPLE])) == ([], [])  # once only
    kit.read_message(kit.belief, Message(sender="bob", text="I saw <wine> (999) on <desk> (11).", step=2))
    events, own = detect(kit.belief, obs, DetectParams())
    assert events == ["found <wine> (999) on <desk> (11)"] and own == []


def test_a_subgoal_done_is_progress_and_my_own_put_is_reported_as_a_fact() -> None:
    _, obs, kit = _start()
    _detect(kit, obs)
    mine = _moved(obs, 3, "livingroom", 110, [CUPCAKE_PLACED], last_action="[put] <cupcake> (300) <coffeetable> (111)",
                  last_action_ok=True)
    events, own = _detect(kit, mine)
    assert own == events == ["put <cupcake> (300) on <coffeetable> (111), 1/1 done"]


def _replies(fits: bool) -> Any:
    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = messages[-1].content
        if text.rstrip().endswith("Meta-plan:"):
            return "Alice: grab <pudding> (304)\nBob: explore <kitchen> (60)"
        if "Does the meta-plan still fit?" in text:
            return f"Reasoning: {'nothing new' if fits else 'nobody has the apple'}\nAnswer: {'A' if fits else 'B'}"
        options = OPTION.findall(text)
        return "Reasoning: go\nAnswer: " + next((k for k, o in options if o.startswith("[goexplore]")), "A")

    return reply


@pytest.mark.parametrize("fits", [True, False])
def test_progress_makes_the_designer_ask_whether_the_plan_fits_and_entering_a_room_does_not(fits: bool) -> None:
    """CaPo A.6 a: a plan that still fits is kept and nobody speaks; one that does not is adapted and discussed."""
    env, obs, _ = _start()
    lm = scripted_lm(_replies(fits))
    agent = GraphAgent("capo", lm=lm, vector_memory=False)
    agent.reset("alice", env.agent_info("alice"), 0)  # seed 0 draws alice as the designer of this team

    def prompts(ending: str) -> list[str]:
        return [m[-1].content for m, _ in lm.chat_model.calls if m[-1].content.rstrip().endswith(ending)]

    first = agent.act(obs)
    assert first.kind == "send_message" and first.message.startswith("[capo plan 1.1]")
    agent.act(obs.model_copy(update={"time": 1}))
    agree = Message(sender="bob", text="[capo feedback 1.1 agree] Fine by me.", step=2)
    agent.act(obs.model_copy(update={"time": 2, "messages": [agree]}))
    assert agent.memory.channel("capo").discussion.consensus and len(prompts("Meta-plan:")) == 1
    entered = agent.act(_moved(obs, 3, "bathroom", 160, []))
    assert entered.kind != "send_message" and len(prompts("Meta-plan:")) == 1  # a new room is not progress
    assert not [p for p in prompts("") if "Does the meta-plan still fit?" in p]
    found = agent.act(_moved(obs, 4, "kitchen", 60, [APPLE]))
    checks = [p for p in prompts("") if "Does the meta-plan still fit?" in p]
    assert len(checks) == 1 and "found <apple> (305)" in checks[0].split("What has changed since:")[1]
    assert "Dialogue so far:" in checks[0] and "Fine by me." in checks[0]
    discussion = agent.memory.channel("capo").discussion
    if fits:
        assert found.kind != "send_message" and len(prompts("Meta-plan:")) == 1  # kept, and nobody speaks
        assert discussion.version == 1 and not discussion.open and discussion.pending == []
        later = agent.act(_moved(obs, 5, "kitchen", 60, [APPLE]))
        assert later.kind != "send_message" and len(checks) == 1
    else:
        assert found.kind == "send_message" and found.message.startswith("[capo plan 2.1]")
        assert len(prompts("Meta-plan:")) == 2
        assert "found <apple> (305)" in prompts("Meta-plan:")[-1].split("What has changed since:")[1]
