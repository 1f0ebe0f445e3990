"""The response cache and model seeds: a sampled call's key holds its seed, a greedy call's does not, so the
replies stored before model seeds existed still answer every replicate of a deterministic run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.caches import BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from coopgraph.llm.cache import SQLiteResponseCache
from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.factory import chat_model_for
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.llm.settings import parse_setting
from coopgraph.testing import scripted_lm

#: What main computed (before model seeds) for the two calls of `_greedy_calls` on `vllm:m`: the keys of the
#: replies every earlier temperature-0 run stored.
KEYS_BEFORE_MODEL_SEEDS = ["e2ff3cc5c4b1144079b5ea65b0467433c8908f8f9063e2cf0f3a1413c5abf2d9",
                           "445afeff6cae90905c60fd481309f3db2dcf358547f2137c90772b10987c3ab4"]
MESSAGES = [{"role": "user", "content": "pick"}]


@pytest.fixture(autouse=True)
def _no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keys were pinned against this base URL (nothing listens there: every lookup is answered)."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


class KeyRecorder(BaseCache):
    """A cache that answers every lookup (so nothing is sent) and keeps the key the SQLite cache would use."""

    def __init__(self, path: Path) -> None:
        self.sqlite = SQLiteResponseCache(path)
        self.keys: list[str] = []

    def lookup(self, prompt: str, llm_string: str) -> Any:
        self.keys.append(self.sqlite._key(prompt, llm_string))
        return [ChatGeneration(message=AIMessage(content="Answer: A"))]

    def update(self, prompt: str, llm_string: str, return_val: Any) -> None:
        return None

    def clear(self, **kwargs: Any) -> None:
        return None


def _keys(tmp_path: Path, seed: int | None, options: dict[str, float] | None = None,
          constraint: ChoiceConstraint | None = None, max_tokens: int = 50) -> list[str]:
    recorder = KeyRecorder(tmp_path / "keys.sqlite")
    chat = chat_model_for(parse_setting("vllm:m"), cache=recorder)
    ChatModelTransport(chat, "vllm", seed).complete(
        ChatRequest(MESSAGES, constraint=constraint, max_tokens=max_tokens, options=options or {}))
    return recorder.keys


def _greedy_calls(tmp_path: Path, seed: int | None) -> list[str]:
    return [*_keys(tmp_path, seed, constraint=ChoiceConstraint(("x", "y"))),
            *_keys(tmp_path, seed, options={"temperature": 0.0, "top_p": 1.0})]


@pytest.mark.parametrize("seed", [None, 0, 7, 1725263444])
def test_a_greedy_calls_key_is_the_one_stored_before_model_seeds(tmp_path: Path, seed: int | None) -> None:
    assert _greedy_calls(tmp_path, seed) == KEYS_BEFORE_MODEL_SEEDS


def test_a_sampled_calls_key_holds_its_seed(tmp_path: Path) -> None:
    sampled = {"temperature": 0.7, "top_p": 1.0}
    first, again, other = (_keys(tmp_path, s, options=sampled)[0] for s in (11, 11, 12))
    assert first == again and first != other


def test_a_sampled_call_at_the_settings_own_seed_keeps_its_earlier_key(tmp_path: Path) -> None:
    sampled = {"temperature": 0.7}
    assert _keys(tmp_path, 0, options=sampled) == _keys(tmp_path, None, options=sampled)


def test_the_settings_temperature_decides_when_the_call_sets_none(tmp_path: Path) -> None:
    recorder = KeyRecorder(tmp_path / "keys.sqlite")
    chat = chat_model_for(parse_setting("vllm:m", temperature=0.5), cache=recorder)
    for seed in (3, 4):
        ChatModelTransport(chat, "vllm", seed).complete(ChatRequest(MESSAGES, max_tokens=5))
    assert recorder.keys[0] != recorder.keys[1]


def test_a_call_whose_parameters_cannot_be_read_keeps_its_seed() -> None:
    from coopgraph.llm.cache import _without_greedy_seed

    unreadable = "{}---[('seed', 3), ('temperature', 0.0), ('x', <object>)]"
    assert _without_greedy_seed(unreadable) == unreadable
    assert _without_greedy_seed("{}---[('seed', 3), ('temperature', 0.0)]") == "{}---[('temperature', 0.0)]"


def test_replicates_sampling_one_prompt_store_a_reply_each(tmp_path: Path) -> None:
    cache = SQLiteResponseCache(tmp_path / "r.sqlite")
    sampled = ChatRequest(MESSAGES, max_tokens=10, options={"temperature": 0.7})
    replies = iter(["Answer: A", "Answer: B", "never asked"])
    lm = scripted_lm(lambda messages, kwargs: next(replies), cache=cache)
    first, second = lm.with_seed(1).complete(sampled), lm.with_seed(2).complete(sampled)
    again = lm.with_seed(1).complete(sampled)
    assert (first.text, second.text) == ("Answer: A", "Answer: B")
    assert (again.text, again.cache_hit) == ("Answer: A", True)
