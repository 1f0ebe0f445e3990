"""CoopLM's requests: the reply-length cap reaches servers that ignore OpenAI's renamed parameter."""

from __future__ import annotations

from coopgraph.llm.client import CoopLM
from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.interface import ChatRequest
from coopgraph.testing import ScriptedChatModel


def _kwargs(backend: str, constraint: ChoiceConstraint | None = None) -> dict:
    chat = ScriptedChatModel(script=["Answer: A"])
    CoopLM(chat, backend=backend).complete(
        ChatRequest([{"role": "user", "content": "hi"}], constraint=constraint, max_tokens=37))
    return chat.calls[0][1]


def test_llamacpp_and_vllm_get_max_tokens_in_their_own_words_beside_the_grammar() -> None:
    free = _kwargs("llamacpp")
    assert free["max_tokens"] == 37 and free["extra_body"] == {"max_tokens": 37}
    constrained = _kwargs("llamacpp", ChoiceConstraint(("a", "b"), reasoning_chars=0))
    assert constrained["extra_body"]["max_tokens"] == 37 and "grammar" in constrained["extra_body"]
    assert _kwargs("vllm", ChoiceConstraint(("a", "b")))["extra_body"]["max_tokens"] == 37


def test_openai_gets_no_extra_body() -> None:
    assert "extra_body" not in _kwargs("openai") and "extra_body" not in _kwargs("fake")


OPTIONS = ("[send_message] <hi>", "[send_message] <hi> <again>", "[gograb] <apple> (302)")


def _lazy(script: list[str], reasoning_chars: int = 0) -> tuple[ScriptedChatModel, str, list[dict]]:
    chat = ScriptedChatModel(script=script)
    events: list[dict] = []
    tracer = type("Tracer", (), {"event": lambda self, kind, **kw: events.append({"kind": kind, **kw})})()
    lm = CoopLM(chat, backend="llamacpp", lazy_grammar=True, tracer=tracer)
    constraint = ChoiceConstraint(OPTIONS, answer_format="text", reasoning_chars=reasoning_chars)
    done = lm.complete(ChatRequest([{"role": "user", "content": "pick"}], max_tokens=20, constraint=constraint))
    return chat, done.text, events


def test_a_reply_that_is_already_an_option_skips_the_grammar() -> None:
    chat, text, events = _lazy(["Answer: [gograb] <apple> (302)"])
    assert text == "Answer: [gograb] <apple> (302)" and len(chat.calls) == 1
    assert "grammar" not in chat.calls[0][1]["extra_body"] and events[-1]["grammar"] == "unneeded"
    assert chat.calls[0][1]["stop"] == ["\n", " — "]  # one line, and a copied note after the option is noise


def test_a_reply_off_the_list_is_asked_again_under_the_grammar() -> None:
    chat, text, events = _lazy(["Answer: [gograb] <apple> (303)", "Answer: [gograb] <apple> (302)"])
    assert len(chat.calls) == 2 and "grammar" in chat.calls[1][1]["extra_body"]
    assert text == "Answer: [gograb] <apple> (302)" and events[-1]["grammar"] == "applied"
    assert events[-1]["free_response"] == "Answer: [gograb] <apple> (303)"


def test_a_note_copied_after_the_option_is_cut_without_asking_again() -> None:
    chat, text, events = _lazy(["Answer: [gograb] <apple> (302) — 4.8 m"])
    assert len(chat.calls) == 1 and text == "Answer: [gograb] <apple> (302)" and events[-1]["grammar"] == "unneeded"
    assert events[-1]["free_response"].endswith("— 4.8 m") and events[-1]["response"] == text


def test_an_option_that_begins_a_longer_one_is_left_to_the_grammar() -> None:
    chat, _, _ = _lazy(["Answer: [send_message] <hi>", "Answer: [send_message] <hi> <again>"])
    assert len(chat.calls) == 2


def test_a_reasoned_answer_always_goes_through_the_grammar() -> None:
    chat, _, events = _lazy(["Reasoning: near\nAnswer: [gograb] <apple> (302)"], reasoning_chars=40)
    assert len(chat.calls) == 1 and "grammar" in chat.calls[0][1]["extra_body"] and events[-1]["grammar"] == "applied"


def test_each_team_member_asks_its_own_chat_model_and_keeps_it_across_tracers() -> None:
    servers = {0: ScriptedChatModel(script=["zero"] * 4), 1: ScriptedChatModel(script=["one"] * 4)}
    lm = CoopLM(servers[0], backend="llamacpp", member_chat_models=lambda i: servers[i % 2])
    ask = ChatRequest([{"role": "user", "content": "hi"}], max_tokens=3)
    second = lm.for_member(1)
    assert second.complete(ask).text == "one" and lm.for_member(2).complete(ask).text == "zero"
    assert second.with_tracer(None).complete(ask).text == "one"  # a new episode's tracer keeps the member's server
    assert len(servers[1].calls) == 2 and len(servers[0].calls) == 1


def test_a_single_server_serves_every_member() -> None:
    lm = CoopLM(ScriptedChatModel(script=["x"]), backend="openai")
    assert lm.for_member(3) is lm


def test_requests_are_sent_while_holding_the_turn() -> None:
    from contextlib import contextmanager

    held: list[str] = []

    @contextmanager
    def turn():  # type: ignore[no-untyped-def]
        held.append("take")
        yield
        held.append("give back")

    chat = ScriptedChatModel(script=["a"])
    original = chat._generate

    def generate(*args, **kwargs):  # type: ignore[no-untyped-def]
        held.append("send")
        return original(*args, **kwargs)

    object.__setattr__(chat, "_generate", generate)
    CoopLM(chat, backend="llamacpp", turn=turn).complete(ChatRequest([{"role": "user", "content": "hi"}]))
    assert held == ["take", "send", "give back"]
