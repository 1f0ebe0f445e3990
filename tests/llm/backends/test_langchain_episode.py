"""The `langchain:` backend proves the seam: a chat model outside the OpenAI family (LangChain's ChatOllama, against
a local server speaking Ollama's API) plays a short C-WAH episode as CoELA beside MHP, through the same stack of
layers (cache, retries, circuit, tracing) as every other backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import coopgraph
from coopgraph.llm.backends.langchain import LangChainBackend
from coopgraph.llm.settings import LLMSettingError, parse_setting
from tests.llm.backends.ollama_server import ollama_server


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "cache"))


def test_coela_plays_cwah_through_chat_ollama(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with ollama_server() as server:
        monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{server.server_address[1]}")
        result = coopgraph.run(env="cwah", episode="test/0", team=["coela", "mhp"],
                               llm=["langchain:ollama:tiny", None], max_steps=4, seed=2, out=tmp_path)
        asked = list(server.requests)  # type: ignore[attr-defined]
    assert result.steps == 4 and asked, "the episode asked the Ollama server"
    assert {body["model"] for body in asked} == {"tiny"}
    sampled = asked[-1]["options"]
    assert sampled["temperature"] == 0.7 and sampled["top_p"] == 1.0 and "num_predict" in sampled
    assert "seed" in sampled  # the agent's model seed, on Ollama's own field
    events = [json.loads(line) for line in Path(result.trace_path).read_text().splitlines()]
    calls = [e for e in events if e["type"] == "llm_call"]
    assert calls and {e["backend"] for e in calls} == {"langchain"}
    assert not [e for e in events if e["type"] in ("llm_error", "model_fallback")]
    assert any(e["response"].endswith("Answer: A") for e in calls)


def test_a_provider_without_its_package_is_named_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "langchain_anthropic" else real(name, *a))
    with pytest.raises(LLMSettingError, match=r"needs the langchain-anthropic package: pip install langchain-anthr"):
        parse_setting("langchain:anthropic:claude-haiku-4-5")
    with pytest.raises(LLMSettingError, match="langchain:PROVIDER:MODEL"):
        parse_setting("langchain:llama3")


def test_an_unknown_provider_is_refused_with_the_known_ones() -> None:
    settings = parse_setting("langchain:nosuchprovider:m")
    with pytest.raises(LLMSettingError, match="Supported model providers are: .*ollama") as refused:
        LangChainBackend().chat_model(settings)
    assert "\n" not in str(refused.value)


def test_request_knobs_land_on_the_providers_own_fields() -> None:
    from langchain_ollama import ChatOllama

    from coopgraph.llm.interface import ChatRequest

    chat = ChatOllama(model="tiny")
    asked, kwargs = LangChainBackend().request(
        chat, ChatRequest([{"role": "user", "content": "hi"}], max_tokens=9,
                          options={"temperature": 0.2, "stop": ["\n"], "n": 3}), seed=5)
    assert (asked.num_predict, asked.temperature, asked.seed) == (9, 0.2, 5)
    assert kwargs == {"stop": ["\n"]} and chat.num_predict is None  # the shared model is left as it was


def test_a_dead_provider_server_is_named_and_opens_its_circuit(monkeypatch: pytest.MonkeyPatch) -> None:
    from coopgraph.llm.announce import ModelServerWarning
    from coopgraph.llm.factory import make_lm
    from coopgraph.llm.interface import ChatRequest

    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens: connections are refused
    lm = make_lm("langchain:ollama:tiny", cache=False)
    assert lm.circuit.announcer.server == "http://127.0.0.1:9"  # from Ollama's client, not a class name
    with pytest.warns(ModelServerWarning) as said:
        for _ in range(3):
            with pytest.raises(Exception):  # noqa: B017, PT011 - a refused connection, then refusals at once
                lm.complete(ChatRequest([{"role": "user", "content": "hi"}], max_tokens=5))
    lines = [str(w.message) for w in said]
    assert "http://127.0.0.1:9 cannot be reached" in lines[0] and "circuit open" in lines[1]
    assert (lm.usage.errors, lm.usage.refused) == (3, 2)  # the first call and its retry opened the circuit
