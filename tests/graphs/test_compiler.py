"""Compiled graphs run the declared nodes in order, trace them, and enforce node and router contracts."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.graphs.compiler import NodeContractError, compile_spec
from coopgraph.graphs.loader import load_spec
from coopgraph.graphs.mermaid import to_mermaid
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.registry import NODES, ROUTERS, RouterInfo
from coopgraph.testing import TextSession, scripted_lm

FIXTURES = Path(__file__).parent / "fixtures"


def _reply(messages, kwargs) -> str:
    return "Reasoning: apple first\nAnswer: A" if "Actions:" in messages[-1].content else "The apple is here."


def test_describe_then_choose_runs_and_traces(tracer) -> None:
    lm = scripted_lm(_reply, tracer=tracer)
    world = TextSession("toyhouse/0")
    graph = compile_spec("describe_choose")
    out = graph.invoke({"facts": world.facts(), "actions": world.actions()},
                       context=AgentResources(lm=lm, tracer=tracer, env="toyhouse"))
    assert out["description"] == "The apple is here."
    assert out["choice"] == "[visit] <kitchen> (1)" and out["invalid"] is False
    kinds = [(e["type"], e.get("node")) for e in tracer.events]
    assert kinds == [("node_start", "describe"), ("llm_call", "describe"), ("node_end", "describe"),
                     ("node_start", "choose"), ("llm_call", "choose"), ("node_end", "choose")]
    call = tracer.events[4]
    assert "[visit] <kitchen> (1)" in call["prompt"][-1]["content"] and call["response"].endswith("Answer: A")
    assert "The apple is here." in lm.chat_model.prompts()[1]


def test_router_branch_is_followed(tracer) -> None:
    lm = scripted_lm(["not an answer at all"] * 3 + ["Nothing to do."], tracer=tracer)
    graph = compile_spec(FIXTURES / "good" / "routed.yaml")
    out = graph.invoke({"actions": ["x", "y"], "facts": {"goal": "g", "facts_text": "f"}},
                       context=AgentResources(lm=lm, tracer=tracer))
    # fallback "first" still yields a choice, so the router ends the run
    assert out["invalid"] is True and out["choice"] == "x"
    assert [e for e in tracer.events if e["type"] == "route"][0]["branch"] == "chosen"


def test_router_returning_undeclared_branch_is_an_error(monkeypatch) -> None:
    info = ROUTERS.get("planning.has_choice")
    monkeypatch.setitem(ROUTERS.entries, "planning.has_choice",
                        RouterInfo(info.name, lambda s, c: "sideways", info.branches))
    graph = compile_spec(FIXTURES / "good" / "routed.yaml")
    lm = scripted_lm(["Answer: A"])
    with pytest.raises(NodeContractError, match="returned 'sideways'"):
        graph.invoke({"actions": ["x", "y"], "facts": {"goal": "g"}}, context=AgentResources(lm=lm))


def test_node_writing_undeclared_key_is_an_error(monkeypatch) -> None:
    info = NODES.get("text.describe")
    monkeypatch.setitem(NODES.entries, "text.describe",
                        info.__class__(**{**info.__dict__, "fn": lambda s, c: {"choice": "sneaky"}}))
    graph = compile_spec("describe_choose")
    with pytest.raises(NodeContractError, match="undeclared keys"):
        graph.invoke({"actions": [], "facts": {}}, context=AgentResources(lm=scripted_lm(["x"])))


def test_mermaid_drawing_snapshot() -> None:
    assert to_mermaid(load_spec(FIXTURES / "good" / "routed.yaml")) == (
        "flowchart TD\n    __start__([start])\n    __end__([end])\n"
        '    choose["choose<br/><small>planning.choose_action</small>"]\n'
        '    describe["describe<br/><small>text.describe</small>"]\n'
        "    __start__ --> choose\n    describe --> __end__\n"
        "    choose -. chosen .-> __end__\n    choose -. none .-> describe\n"
    )
