"""Reading a reply's answer letter two ways: `faithful` as LLM-Co's reasoning evaluation does, `fixed` leniently.

Faithful: the text after `Action:`, else after `Answer:`, else the whole reply; its first `X.` or `X)` gives the
letter, else the option line most like that text (LLM-Co's fuzzy match, here difflib's ratio, which never finds
nothing); the letter scores if it is one of the answer ordinal split on commas, spaces kept (`D, F` never accepts F).
Fixed: the same answer text read by the nodes' lenient choice parser (letter, option text, close match, or nothing)
and compared with the stripped letters. An answer neither reads counts as wrong.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from coopgraph.evals.reasoning.questions import Question
from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.nodes.choice_parsing import parse_choice

Scorer = Literal["faithful", "fixed"]
SCORERS: tuple[Scorer, ...] = ("faithful", "fixed")
_LETTER = re.compile(r"([A-Z])[.)]")
_MARKS = (re.compile(r"Action:"), re.compile(r"Answer:"))


@dataclass(frozen=True)
class Reading:
    """The letter a scorer read from a reply (None: unreadable) and whether it is accepted."""

    letter: str | None
    correct: bool
    how: str  # letter, fuzzy, lenient, none


def answer_part(reply: str) -> str:
    """The text after LLM-Co's `Action:` marker, else after `Answer:`, else the whole reply."""
    for mark in _MARKS:
        if mark.search(reply):
            return mark.split(reply, maxsplit=1)[1]
    return reply


def read_faithful(question: Question, reply: str) -> Reading:
    part = answer_part(reply)
    found = _LETTER.search(part)
    if found:
        letter, how = found.group(1), "letter"
    elif part.strip():
        lines = question.option_lines
        scores = [difflib.SequenceMatcher(None, part.strip().lower(), line.lower()).ratio() for line in lines]
        letter, how = question.letters[scores.index(max(scores))], "fuzzy"
    else:
        return Reading(None, False, "none")
    return Reading(letter, letter in question.accepted(faithful=True), how)


def read_fixed(question: Question, reply: str) -> Reading:
    constraint = ChoiceConstraint(question.options, "letter", reasoning_chars=0)
    index, _ = parse_choice(f"Answer: {answer_part(reply).strip()}", constraint)
    if index is None:
        return Reading(None, False, "none")
    letter = question.letters[index]
    return Reading(letter, letter in question.accepted(faithful=False), "lenient")


def read(question: Question, reply: str, scorer: Scorer) -> Reading:
    return read_faithful(question, reply) if scorer == "faithful" else read_fixed(question, reply)
