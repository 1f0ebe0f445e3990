"""communication.report_news: template news for planners that cannot write, in the format partners parse."""

from __future__ import annotations

import re
from typing import Any

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)


def grabbing_planner(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """Puts what it holds, else grabs, else checks, else explores; never a message (it cannot write one)."""
    options = OPTION.findall(messages[-1].content)
    for wanted in ("[goput]", "[gograb]", "[gocheck]", "[goexplore]"):
        for letter, option in options:
            if option.startswith(wanted):
                return f"Reasoning: {wanted}\nAnswer: {letter}"
    return "Answer: A"


def _episode(tracer: Any) -> tuple[Any, Any, Any]:
    lm = scripted_lm(grabbing_planner, tracer=tracer)
    agent = GraphAgent("coela-news", lm=lm)
    partner = make_partner("mhp")
    result = run_episode(envs.make("cwah", episode="test/0", num_agents=2), [agent, partner], max_steps=60,
                         tracer=tracer)
    return result, lm, partner


def test_news_goes_out_in_mhps_templates_without_any_drafting_call(tracer) -> None:
    result, lm, partner = _episode(tracer)
    sent = [m for m in result.messages if m.sender == "alice"]
    assert sent and all(part[:3] in ("P: ", "I: ", "B: ") for m in sent for part in m.text.split(" | "))
    assert not any("My message:" in msgs[-1].content for msgs, _ in lm.chat_model.calls)
    put = next(m for m in sent if m.text.startswith("P: I put "))  # its own puts are reported
    placed = int(re.search(r"\((\d+)\) (?:on|in) <", put.text).group(1))
    assert partner.belief.objects[placed].on is not None or partner.belief.objects[placed].inside is not None


def test_a_grab_is_announced_the_step_after_it_is_chosen_and_the_plan_goes_on(tracer) -> None:
    result, _, _ = _episode(tracer)
    plans = {e["step"]: e["plan"] for e in tracer.events if e["type"] == "plan" and e["agent"] == "alice"}
    news = [e for e in tracer.events if e["type"] == "news" and "I: Next I will get" in e["message"]]
    assert news and len(news) == len([m for m in result.messages if "I: Next I will get" in m.text
                                      and m.sender == "alice"])
    for event in news:
        target = re.search(r"Next I will get (<\w+> \(\d+\))", event["message"]).group(1)
        assert plans.get(event["step"] - 1) == event["plan"] == f"[gograb] {target}"
        assert event["step"] not in plans  # the message is the step's action: no new decision that step
