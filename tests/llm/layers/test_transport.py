"""The transport alone: request parameters in each backend's words, and what a reply reports."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.factory import chat_model_for
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.llm.settings import parse_setting
from coopgraph.testing import ScriptedChatModel

HI = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def test_messages_keep_their_roles_and_only_per_call_options_are_sent() -> None:
    chat = ScriptedChatModel(script=["hello"])
    ChatModelTransport(chat, "openai").complete(
        ChatRequest(HI, max_tokens=9, options={"temperature": 0.3, "n": 4, "rollout_id": 1}))
    messages, kwargs = chat.calls[0]
    assert [(m.type, m.content) for m in messages] == [("system", "be brief"), ("human", "hi")]
    assert kwargs == {"max_tokens": 9, "temperature": 0.3}


def test_a_constraint_becomes_the_backends_grammar() -> None:
    constraint = ChoiceConstraint(("a", "b"), reasoning_chars=0)
    chat = ScriptedChatModel(script=["Answer: A"])
    done = ChatModelTransport(chat, "llamacpp").complete(ChatRequest(HI, constraint=constraint, max_tokens=5))
    assert chat.calls[0][1]["extra_body"]["grammar"].startswith('root ::= "Answer: " answer')
    assert done.grammar == "applied"
    assert ChatModelTransport(ScriptedChatModel(script=["x"]), "llamacpp").complete(ChatRequest(HI)).grammar == "none"


def test_a_reply_reports_its_tokens_and_loses_its_control_characters() -> None:
    chat = ScriptedChatModel(script=["fine\x00 thanks"])
    done = ChatModelTransport(chat, "fake").complete(ChatRequest(HI))
    assert (done.text, done.raw_text) == ("fine thanks", "fine\x00 thanks")
    assert (done.prompt_tokens, done.completion_tokens) == (3, 2)  # the scripted model counts words
    assert done.finished and not done.cache_hit and done.cache_key is None


def test_the_transport_keeps_nothing_to_discard_and_never_stops_a_decision() -> None:
    transport = ChatModelTransport(ScriptedChatModel(script=["x"]), "fake")
    done = transport.complete(ChatRequest(HI))
    assert transport.discard(done) is False and transport.stop_reason(0.0) is None


def test_any_server_but_openais_own_is_told_max_tokens_in_its_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    from coopgraph.llm.backends import backend_named

    # An openai: setting pointed at llama.cpp, Ollama or LM Studio: ChatOpenAI's max_completion_tokens alone is
    # ignored there, and a model that never writes its stop token writes until the context is full.
    openai = backend_named("openai")
    assert openai.speaks_max_tokens("http://127.0.0.1:8000/v1")  # type: ignore[attr-defined]
    assert not openai.speaks_max_tokens("https://api.openai.com/v1")  # type: ignore[attr-defined]
    assert not openai.speaks_max_tokens(None)  # type: ignore[attr-defined]
    assert backend_named("llamacpp").speaks_max_tokens(None)  # type: ignore[attr-defined]
    assert backend_named("vllm").speaks_max_tokens(None)  # type: ignore[attr-defined]

    def sent(base_url: str) -> dict[str, Any]:
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        chat = chat_model_for(parse_setting("openai:m"))
        return openai.request(chat, ChatRequest(HI, max_tokens=30), None)[1]

    assert sent("http://localhost:11434/v1") == {"max_tokens": 30, "extra_body": {"max_tokens": 30}}
    assert sent("https://api.openai.com/v1") == {"max_tokens": 30}


def test_the_agents_model_seed_goes_with_every_request() -> None:
    chat = ScriptedChatModel(script=["x"])
    transport = ChatModelTransport(chat, "vllm", seed=1234)
    transport.complete(ChatRequest(HI, options={"temperature": 0.7}))
    transport.complete(ChatRequest(HI))
    assert [kwargs["seed"] for _, kwargs in chat.calls] == [1234, 1234]
    ChatModelTransport(chat, "vllm").complete(ChatRequest(HI))
    assert "seed" not in chat.calls[-1][1]  # no model seed: the chat model's own, if it has one


def test_a_seed_the_chat_model_already_sends_is_not_sent_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    chat = chat_model_for(parse_setting("vllm:m"))
    sent: list[dict[str, Any]] = []

    def invoke(self: Any, messages: Any, **kwargs: Any) -> AIMessage:
        sent.append(kwargs)
        return AIMessage(content="x")

    monkeypatch.setattr(type(chat), "invoke", invoke)
    ChatModelTransport(chat, "vllm", seed=0).complete(ChatRequest(HI))
    ChatModelTransport(chat, "vllm", seed=9).complete(ChatRequest(HI))
    assert chat._default_params["seed"] == 0  # the setting's seed, which ChatOpenAI sends with every request
    assert "seed" not in sent[0] and sent[1]["seed"] == 9
