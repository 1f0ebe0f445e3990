"""CoopLM's requests: the reply-length cap reaches servers that ignore OpenAI's renamed parameter."""

from __future__ import annotations

from coopgraph.llm.client import CoopLM
from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.testing import ScriptedChatModel


def _kwargs(backend: str, constraint: ChoiceConstraint | None = None) -> dict:
    chat = ScriptedChatModel(script=["Answer: A"])
    CoopLM(chat, backend=backend).complete_chat([{"role": "user", "content": "hi"}], constraint=constraint,
                                                max_tokens=37)
    return chat.calls[0][1]


def test_llamacpp_and_vllm_get_max_tokens_in_their_own_words_beside_the_grammar() -> None:
    free = _kwargs("llamacpp")
    assert free["max_tokens"] == 37 and free["extra_body"] == {"max_tokens": 37}
    constrained = _kwargs("llamacpp", ChoiceConstraint(("a", "b"), reasoning_chars=0))
    assert constrained["extra_body"]["max_tokens"] == 37 and "grammar" in constrained["extra_body"]
    assert _kwargs("vllm", ChoiceConstraint(("a", "b")))["extra_body"]["max_tokens"] == 37


def test_openai_gets_no_extra_body() -> None:
    assert "extra_body" not in _kwargs("openai") and "extra_body" not in _kwargs("fake")
