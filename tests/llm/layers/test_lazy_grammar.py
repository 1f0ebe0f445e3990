"""Lazy grammar alone: which choices are first asked without their grammar, and what each reply becomes."""

from __future__ import annotations

from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.layers.lazy_grammar import LazyGrammar
from coopgraph.llm.layers.transport import ChatModelTransport
from coopgraph.testing import ScriptedChatModel

OPTIONS = ("[gocheck] <cabinet> (13)", "[gograb] <apple> (302)")


def _ask(script: list[str], reasoning_chars: int = 0, **options: object) -> tuple[ScriptedChatModel, object]:
    chat = ScriptedChatModel(script=script)
    constraint = ChoiceConstraint(OPTIONS, answer_format="text", reasoning_chars=reasoning_chars)
    request = ChatRequest([{"role": "user", "content": "pick"}], constraint=constraint, max_tokens=12,
                          options=options)
    return chat, LazyGrammar(ChatModelTransport(chat, "llamacpp")).complete(request)


def test_a_settled_reply_needs_one_call_without_the_grammar() -> None:
    chat, done = _ask(["Answer: [gograb] <apple> (302)"])
    assert len(chat.calls) == 1 and "grammar" not in chat.calls[0][1]["extra_body"]
    assert chat.calls[0][1]["stop"] == ["\n", " — "]
    assert (done.text, done.grammar, done.free_response) == ("Answer: [gograb] <apple> (302)", "unneeded", None)


def test_an_unsettled_reply_is_asked_again_and_its_tokens_are_counted() -> None:
    chat, done = _ask(["Answer: [gograb] <pear> (302)", "Answer: [gograb] <apple> (302)"])
    assert len(chat.calls) == 2 and "grammar" in chat.calls[1][1]["extra_body"] and "stop" not in chat.calls[1][1]
    assert done.grammar == "applied" and done.free_response == "Answer: [gograb] <pear> (302)"
    assert done.completion_tokens == 8  # 4 words wasted on the free reply, 4 in the constrained one


def test_reasoned_or_sampled_choices_go_straight_to_the_grammar() -> None:
    for chat, done in (_ask(["Reasoning: x\nAnswer: [gograb] <apple> (302)"], reasoning_chars=40),
                       _ask(["Answer: [gograb] <apple> (302)"], temperature=0.7)):
        assert len(chat.calls) == 1 and "grammar" in chat.calls[0][1]["extra_body"] and done.grammar == "applied"


def test_a_reply_with_a_control_character_after_the_option_is_not_taken_as_settled() -> None:
    chat, done = _ask(["Answer: [gograb] <apple> (302)\x07", "Answer: [gograb] <apple> (302)"])
    assert len(chat.calls) == 2 and done.grammar == "applied"
