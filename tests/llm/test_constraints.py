"""Backend request parameters enforce the choice; grammars are well-formed for llama.cpp."""

from __future__ import annotations

import re

from coopgraph.llm.backends import backend_named
from coopgraph.llm.constraints import ChoiceConstraint, gbnf, max_tokens_for, regex, settled_answer

C = ChoiceConstraint(("grab the apple", 'say "hi"'), answer_format="text", reasoning_chars=50)


def test_gbnf_allows_reasoning_then_exact_options() -> None:
    grammar = gbnf(C)
    assert 'root ::= "Reasoning: " reason "\\nAnswer: " answer' in grammar
    assert 'answer ::= "grab the apple" | "say \\"hi\\""' in grammar
    assert "reason ::= [^\\n]{1,50}" in grammar


def test_letter_grammar_without_reasoning() -> None:
    grammar = gbnf(ChoiceConstraint(("a", "b", "c"), reasoning_chars=0))
    assert grammar == 'root ::= "Answer: " answer\nanswer ::= "A" | "B" | "C"'


def test_regex_matches_only_valid_replies() -> None:
    pattern = re.compile(regex(C))
    assert pattern.fullmatch('Reasoning: near\nAnswer: say "hi"')
    assert not pattern.fullmatch("Reasoning: near\nAnswer: dance")


def test_each_backend_constrains_a_choice_in_its_own_words() -> None:
    assert "grammar" in backend_named("llamacpp").constrain(C)["extra_body"]
    assert "guided_regex" in backend_named("vllm").constrain(C)["extra_body"]
    assert backend_named("openai").constrain(C) == {} and backend_named("fake").constrain(C) == {}


def test_max_tokens_leaves_room_for_reasoning_and_answer() -> None:
    assert max_tokens_for(C) > 50 // 3 + len("say \"hi\"") // 2
    assert max_tokens_for(ChoiceConstraint(("a", "b"), reasoning_chars=0)) < 20


def test_settled_answers_are_options_that_begin_no_longer_one_with_any_note_after_them_cut() -> None:
    c = ChoiceConstraint(("wait", "wait for Bob", "grab the apple"), answer_format="text", reasoning_chars=0)
    assert settled_answer(c, "Answer: grab the apple") == "Answer: grab the apple"
    assert settled_answer(c, "Answer: wait for Bob") == "Answer: wait for Bob"
    assert settled_answer(c, "Answer: wait") is None  # the grammar would have weighed " for Bob" against stopping
    assert settled_answer(c, "Answer: grab the apple — 4.8 m") == "Answer: grab the apple"  # a copied note
    assert settled_answer(c, "Answer: wait for Bob (done at step 3)") == "Answer: wait for Bob"
    assert settled_answer(c, "Answer: wait for Bobby") is None and settled_answer(c, "Answer: grab the apples") is None
    assert settled_answer(c, "Answer: wait here") is None and settled_answer(c, "grab the apple") is None
    assert not settled_answer(ChoiceConstraint(c.options, reasoning_chars=10), "Answer: A")


def test_a_free_chain_of_thought_takes_any_lines_then_one_listed_answer() -> None:
    free = ChoiceConstraint(("a", "b"), reasoning_chars=160, free_reasoning=True)
    assert "Let's think step by step" in free.instructions() and "Answer: <the letter" in free.instructions()
    assert 'root ::= thought "Answer: " answer' in gbnf(free) and "{1,160}" not in gbnf(free)
    assert re.fullmatch(regex(free), "First.\nThen more.\nAnswer: B")
    assert not re.fullmatch(regex(free), "First.\nAnswer: C")
    off = ChoiceConstraint(("a", "b"), reasoning_chars=0, free_reasoning=True)  # no reasoning: answer at once
    assert off.instructions() == ChoiceConstraint(("a", "b"), reasoning_chars=0).instructions()
    assert settled_answer(free, "Answer: A") is None  # never skips the grammar after a thought
