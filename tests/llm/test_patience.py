"""Bounded waiting and honest retries: a silent server, a decision's deadline, the response cache on a retry,
and control characters in replies."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.graphs.compiler import compile_spec
from coopgraph.llm.announce import ModelServerWarning
from coopgraph.llm.cache import SQLiteResponseCache
from coopgraph.llm.factory import make_lm
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.settings import LLMSettings, parse_setting
from coopgraph.nodes.context import AgentResources
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from tests.llm.fault_server import silent_server as silent

ACTIONS = ["[goexplore] <kitchen> (11)", "[gograb] <apple> (302)", "[send_message]"]
FACTS = {"goal": "put the apple in the fridge", "facts_text": "you see an apple"}


def _choose(lm: Any, tracer: Any) -> dict[str, Any]:
    graph = compile_spec("describe_choose")
    return graph.invoke({"facts": FACTS, "actions": ACTIONS, "description": "x"},
                        context=AgentResources(lm=lm, tracer=tracer))


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server on 127.0.0.1 that accepts every connection and never says a word; stopped by the test."""
    with silent() as server:
        yield server.base_url


def _silent_lm(url: str, tracer: Any = None) -> Any:
    settings = LLMSettings(setting="vllm:silent", kind="vllm", model="silent", backend="vllm", base_url=url,
                           timeout_s=0.5, max_retries=0, decision_deadline_s=2.0, max_failures=2)
    return make_lm(settings, tracer=tracer, cache=False)


def test_transport_bounds_come_from_the_setting(silent_server: str) -> None:
    lm = _silent_lm(silent_server)
    assert lm.chat_model.request_timeout == 0.5 and lm.stack.retry.max_retries == 0
    assert (lm.decision_deadline_s, lm.max_failures) == (2.0, 2)
    twin = lm.with_tracer(None)
    assert (twin.decision_deadline_s, twin.max_failures, twin.circuit.consecutive) == (2.0, 2, 0)
    assert twin.circuit is lm.circuit  # one server, one circuit, whichever agent asks it


def test_patience_knobs_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COOPGRAPH_LLM_TIMEOUT_S", "7.5")
    monkeypatch.setenv("COOPGRAPH_LLM_MAX_FAILURES", "4")
    settings = parse_setting("openai:gpt-4o-mini")
    assert (settings.timeout_s, settings.max_failures) == (7.5, 4)
    assert parse_setting("openai:gpt-4o-mini", timeout_s=3).timeout_s == 3


def test_coela_against_a_silent_server_falls_back_in_bounded_time(silent_server: str, tracer: Any) -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    lm = _silent_lm(silent_server, tracer)
    agent = GraphAgent("coela", lm=lm, vector_memory=False)
    agent.set_tracer(tracer)
    agent.reset("alice", env.agent_info("alice"), 0)
    start = time.monotonic()
    with pytest.warns(ModelServerWarning) as said:
        actions = [agent.act(observations["alice"]) for _ in range(3)]
    elapsed = time.monotonic() - start
    assert all(a is not None for a in actions)
    used = agent.resources.lm  # the agent's own LM for this episode
    # two requests time out (0.5 s each, no retry), then the circuit opens and calls fail at once
    assert used.circuit.state == "open" and used.circuit.consecutive == 2 and used.usage.refused >= 1
    assert used.usage.errors == 2 + used.usage.refused
    assert used.usage.fallbacks >= 1 and used.usage.calls == 0
    assert elapsed < 15, elapsed
    lines = [str(w.message) for w in said]
    assert lines[0].startswith(f"model server {silent_server} did not answer within 0.5 s")
    assert "circuit open" in lines[1] and len(lines) == 2
    assert any(e["type"] == "invalid_answer" for e in tracer.events)  # the node took its fallback, counted
    errors = [e for e in tracer.events if e["type"] == "llm_error"]
    assert any("Timeout" in e["error"] for e in errors) and any("ModelUnavailable" in e["error"] for e in errors)


def test_no_new_attempt_after_the_decisions_deadline(tracer: Any) -> None:
    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        if "Actions:" not in messages[-1].content:
            return "a fine line."
        time.sleep(0.2)
        return "I like turtles"

    lm = scripted_lm(model, tracer=tracer)
    lm.decision_deadline_s = 0.25
    out = _choose(lm, tracer)
    assert out["invalid"] is True and out["choice"] == ACTIONS[0]
    attempts = [e["attempt"] for e in tracer.events if e["type"] == "llm_call" and e["node"] == "choose"]
    assert attempts == [1, 2]  # the node allows 3; the second ends after the deadline
    (invalid,) = [e for e in tracer.events if e["type"] == "invalid_answer"]
    assert "deadline" in invalid["errors"][-1]


def test_a_retry_asks_the_model_and_only_the_usable_reply_is_cached(tmp_path: Path, tracer: Any) -> None:
    path = tmp_path / "responses.sqlite"
    answers = iter(["I like turtles", "Reasoning: grab it\nAnswer: B"])

    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        return next(answers) if "Actions:" in messages[-1].content else "a fine line."

    lm = scripted_lm(model, tracer=tracer, cache=SQLiteResponseCache(path))
    out = _choose(lm, tracer)
    assert out["invalid"] is False and out["choice"] == ACTIONS[1]
    calls = [e for e in tracer.events if e["type"] == "llm_call" and e["node"] == "choose"]
    assert [(c["attempt"], c["cache_hit"]) for c in calls] == [(1, False), (2, False)]
    assert lm.usage.discarded == 1
    stored = [json for (json,) in sqlite3.connect(path).execute("SELECT value FROM responses")]
    assert len(stored) == 2 and not any("turtles" in v for v in stored)  # the description and the valid answer
    assert any("Answer: B" in v for v in stored)

    # a rerun reads the valid answer from the cache at its first attempt, without asking the model
    again = scripted_lm(lambda m, k: "I like turtles", cache=SQLiteResponseCache(path))
    assert _choose(again, None)["choice"] == ACTIONS[1]
    assert again.usage.cache_hits == 2 and again.chat_model.calls == []


def test_an_unusable_reply_is_not_served_again_when_every_attempt_fails(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite"
    lm = scripted_lm(lambda m, k: "I like turtles" if "Actions:" in m[-1].content else "a fine line.",
                     cache=SQLiteResponseCache(path))
    assert _choose(lm, None)["invalid"] is True
    assert lm.usage.cache_hits == 0 and lm.usage.discarded == 3
    stored = [v for (v,) in sqlite3.connect(path).execute("SELECT value FROM responses")]
    assert len(stored) == 1 and "turtles" not in stored[0]


def test_control_characters_never_leave_the_reply(tracer: Any) -> None:
    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        if "Actions:" in messages[-1].content:
            return "Reasoning: go\x00 now\x1b[31m\nAnswer: B\x07"
        return "a fine\x00 line\r\nfor\x7f Bob\x1b."

    lm = scripted_lm(model, tracer=tracer)
    out = _choose(lm, tracer)
    assert out["choice"] == ACTIONS[1] and out["invalid"] is False
    assert "fine line" in out["description"]
    assert not any(ch in out["description"] + out["reasoning"] for ch in "\x00\x1b\x07\x7f\r")
    for event in tracer.events:
        if event["type"] == "llm_call":
            assert not any(ch in event["response"] for ch in "\x00\x1b\x07\x7f\r"), event["response"]
    direct = lm.complete(ChatRequest([{"role": "user", "content": "say hi"}], max_tokens=5))
    assert direct.text == "a fine line\nfor Bob."


def test_waiting_knobs_do_not_change_response_cache_keys() -> None:
    from coopgraph.llm.factory import chat_model_for

    def key(**knobs: Any) -> str:
        settings = LLMSettings(setting="vllm:m", kind="vllm", model="m", backend="vllm",
                               base_url="http://127.0.0.1:9/v1", **knobs)
        return SQLiteResponseCache(":memory:")._key("prompt", chat_model_for(settings)._get_llm_string())

    # keys written before these were settings (120 s, 2 retries) still answer, whatever the run's knobs
    assert key(timeout_s=120.0, max_retries=2) == key() == key(timeout_s=0.5, max_retries=0)
    assert key(temperature=0.7) != key()
