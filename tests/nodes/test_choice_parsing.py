"""Lenient answer parsing: letters, exact text, fuzzy text; anything else is None."""

from __future__ import annotations

import pytest

from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.nodes.choice_parsing import parse_choice

OPTIONS = ("[goexplore] <kitchen> (11)", "[gograb] <apple> (302)", "[send_message]")
C = ChoiceConstraint(OPTIONS)


@pytest.mark.parametrize(
    ("reply", "index"),
    [
        ("Reasoning: the apple is close\nAnswer: B", 1),
        ("Answer: (C)", 2),
        ("answer: a.", 0),
        ("B", 1),
        ("Answer: [gograb] <apple> (302)", 1),
        ("I will take [send_message] now", 2),
        ("Answer: gograb apple 302", 1),
        ("Answer: go explore the garage", None),
        ("Answer: [gograb] <aple> (302)", 1),
        ("Answer: D", None),
        ("", None),
        ("Reasoning: hmm\nAnswer: Q", None),
    ],
)
def test_parse_choice(reply: str, index: int | None) -> None:
    assert parse_choice(reply, C)[0] == index


def test_reasoning_is_returned() -> None:
    assert parse_choice("Reasoning: close by\nAnswer: A", C) == (0, "close by")


def test_long_lists_use_two_letter_labels() -> None:
    many = ChoiceConstraint(tuple(f"option {i}" for i in range(30)))
    assert parse_choice("Answer: AB", many)[0] == 27
    assert many.answers()[26] == "AA"
