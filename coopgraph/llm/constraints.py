"""Answer constraints: how a choice among listed options is enforced on each kind of backend.

A small model does best when it may think briefly and then can only emit a valid option. On
llama.cpp that is a GBNF grammar, on vLLM a guided regex; OpenAI-style servers get no grammar and
rely on the lenient parser. This module is a leaf: nodes build constraints, and each backend
(`coopgraph.llm.backends`, `ChatBackend.constrain`) turns them into its request parameters.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

AnswerFormat = Literal["letter", "text"]


def letter(index: int) -> str:
    """Option label: A..Z then AA, AB... so long action lists stay unambiguous."""
    if index < 26:
        return chr(ord("A") + index)
    return letter(index // 26 - 1) + letter(index % 26)


@dataclass(frozen=True)
class ChoiceConstraint:
    """Answer with one of `options`, optionally after a one-line reasoning of bounded length, or (`free_reasoning`,
    with reasoning on) after a free chain of thought of any number of lines, bounded by the reply's token cap.

    `answer_label` and `reasoning_label` name the reply's lines (`Answer:` and `Reasoning:` unless a method words
    them otherwise: LLM-Co's `Explanation:` and `Action:`); with `exact`, only an answer equal to a listed option
    (trimmed, case aside) counts: no letter, no fuzzy match, as a paper that reads answers that strictly."""

    options: tuple[str, ...]
    answer_format: AnswerFormat = "letter"
    reasoning_chars: int = 200
    free_reasoning: bool = False
    answer_label: str = "Answer"
    reasoning_label: str = "Reasoning"
    exact: bool = False

    @property
    def thinks_freely(self) -> bool:
        return self.free_reasoning and self.reasoning_chars > 0

    def answers(self) -> list[str]:
        if self.answer_format == "letter":
            return [letter(i) for i in range(len(self.options))]
        return list(self.options)

    def instructions(self) -> str:
        """The closing lines every choice prompt ends with, so the format is stated once."""
        target = "the letter of one option" if self.answer_format == "letter" else "one option copied exactly"
        answer, reason = self.answer_label, self.reasoning_label
        if self.thinks_freely:
            return f"Let's think step by step, then give the answer on a last line as:\n{answer}: <{target}>"
        if self.reasoning_chars > 0:
            return (
                "Think in one short line, then answer.\n"
                f"Reply as:\n{reason}: <one line>\n{answer}: <{target}>"
            )
        return f"Reply as:\n{answer}: <{target}>"

    def format_answer(self, index: int, reasoning: str = "") -> str:
        """How a correct reply looks; used for few-shot demos."""
        answer, label = self.answers()[index], self.answer_label
        if self.thinks_freely:
            return f"{reasoning.strip() or 'The best next step is this one.'}\n{label}: {answer}"
        if self.reasoning_chars > 0:
            return f"{self.reasoning_label}: {reasoning.strip() or 'best next step'}\n{label}: {answer}"
        return f"{label}: {answer}"


def _gbnf_literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def gbnf(constraint: ChoiceConstraint) -> str:
    """A llama.cpp grammar: optional bounded reasoning line, then exactly one allowed answer."""
    answers = " | ".join(_gbnf_literal(a) for a in constraint.answers())
    answer, reason = _gbnf_literal(f"{constraint.answer_label}: "), _gbnf_literal(f"{constraint.reasoning_label}: ")
    lines = [f"answer ::= {answers}"]
    if constraint.thinks_freely:  # any lines of thought, then the answer line
        lines.insert(0, f"root ::= thought {answer} answer")
        lines.append('thought ::= ([^\\n]* "\\n")*')
    elif constraint.reasoning_chars > 0:
        newline_answer = _gbnf_literal(f"\n{constraint.answer_label}: ")
        lines.insert(0, f"root ::= {reason} reason {newline_answer} answer")
        lines.append(f"reason ::= [^\\n]{{1,{constraint.reasoning_chars}}}")
    else:
        lines.insert(0, f"root ::= {answer} answer")
    return "\n".join(lines)


def regex(constraint: ChoiceConstraint) -> str:
    """The same shape as a regular expression, for vLLM's guided decoding."""
    answers = "|".join(re.escape(a) for a in constraint.answers())
    answer, reason = f"{re.escape(constraint.answer_label)}: ", f"{re.escape(constraint.reasoning_label)}: "
    if constraint.thinks_freely:
        return f"(.*\\n)*{answer}({answers})"
    if constraint.reasoning_chars > 0:
        return f"{reason}[^\\n]{{1,{constraint.reasoning_chars}}}\\n{answer}({answers})"
    return f"{answer}({answers})"


#: What coopgraph's prompts put between an option and its note ("[gocheck] <cabinet> (13) — 4.8 m"): an
#: unconstrained answer is stopped there, since whatever a model copies after the option is not the answer.
NOTE_SEPARATOR = " — "


def settled_answer(constraint: ChoiceConstraint, text: str) -> str | None:
    """The reply the grammar would have produced for an unconstrained greedy one (`Answer: <option>`), or None.

    At temperature 0 the grammar only changes a reply where the model's own best token breaks it. A reply that
    is exactly one answer (and not the start of a longer one, where the grammar would have weighed going on
    against stopping) is therefore the constrained reply, got without the grammar's per-token cost over the
    whole vocabulary. So is a reply that goes on after one answer with a space (a model copying the option's
    whole line, note and all, as "[gocheck] <cabinet> (13) — 4.8 m"), when no other answer goes on from it: the
    grammar could only have stopped there (the reply is cut to the answer). Only answer-only replies qualify.
    """
    head = f"{constraint.answer_label}: "
    if constraint.reasoning_chars > 0 or not text.startswith(head):
        return None
    reply = text.removeprefix(head)
    answers = constraint.answers()
    begun = [a for a in answers if reply.startswith(a) and (reply == a or reply[len(a)].isspace())]
    if not begun:
        return None
    longest = max(begun, key=len)  # shorter answers it begins with were passed by the model's own best tokens
    if any(a != longest and a.startswith(longest) for a in answers):
        return None
    return f"{head}{longest}"


def max_tokens_for(constraint: ChoiceConstraint) -> int:
    """Enough tokens for the reasoning line and the longest answer, never much more."""
    longest = max((len(a) for a in constraint.answers()), default=1)
    return 8 + (constraint.reasoning_chars // 3 if constraint.reasoning_chars else 0) + longest // 2 + 4
