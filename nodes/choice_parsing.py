"""Lenient reading of a model's answer: a letter, the option's exact text, or a close fuzzy match.

Grammars make answers exact on llama.cpp, but OpenAI-style servers and fakes answer freely, so the
parser accepts what a reasonable reader would and returns None for anything else. A constraint marked `exact`
(a method that reads answers strictly, as LLM-Co does) accepts only a listed option's text.
"""

from __future__ import annotations

import difflib
import re

from coopgraph.llm.constraints import ChoiceConstraint, letter

_ANSWER = re.compile(r"answer\s*[:\-]\s*", re.IGNORECASE)
_REASONING = re.compile(r"^\s*reasoning\s*:\s*", re.IGNORECASE)


def answer_mark(label: str = "Answer") -> re.Pattern[str]:
    """The marker a reply's answer follows (`Answer:`, or a method's own label such as `Action:`)."""
    return _ANSWER if label == "Answer" else re.compile(rf"{re.escape(label)}\s*[:\-]\s*", re.IGNORECASE)


def _reasoning_mark(label: str) -> re.Pattern[str]:
    return _REASONING if label == "Reasoning" else re.compile(rf"^\s*{re.escape(label)}\s*:\s*", re.IGNORECASE)
_LABEL = re.compile(r"^[\s\"'(\[*]*([A-Z]{1,2})(?:[\s\"').\]:*,]|$)")


def split_reasoning(text: str, answer_label: str = "Answer", reasoning_label: str = "Reasoning") -> tuple[str, str]:
    """Return (reasoning, answer part) around the last answer marker (`Answer:` unless labelled otherwise)."""
    matches = list(answer_mark(answer_label).finditer(text))
    if not matches:
        return "", text.strip()
    last = matches[-1]
    reasoning = _reasoning_mark(reasoning_label).sub("", text[: last.start()]).strip()
    return reasoning, text[last.end():].strip()


def parse_exact(text: str, constraint: ChoiceConstraint) -> tuple[int | None, str]:
    """The strict reading: the text after the last answer marker (none: no answer), its first line trimmed, must
    equal a listed option's text, case aside."""
    if not answer_mark(constraint.answer_label).search(text or ""):
        return None, ""
    reasoning, answer = split_reasoning(text, constraint.answer_label, constraint.reasoning_label)
    wanted = (answer.splitlines() or [""])[0].strip().lower()
    found = next((i for i, option in enumerate(constraint.options) if option.strip().lower() == wanted), None)
    return found, reasoning


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().strip("\"'`.").lower())


def parse_choice(text: str, constraint: ChoiceConstraint) -> tuple[int | None, str]:
    """Map a reply to an option index (or None) and return the reasoning that preceded it."""
    if constraint.exact:
        return parse_exact(text, constraint)
    reasoning, answer = split_reasoning(text or "", constraint.answer_label, constraint.reasoning_label)
    options = constraint.options
    if not answer or not options:
        return None, reasoning
    first_line = answer.splitlines()[0]
    letters = [letter(i) for i in range(len(options))]
    bare = first_line.strip(" \t\"'()[]*.:,")
    if len(bare) == 1 and bare.upper() in letters:
        return letters.index(bare.upper()), reasoning
    match = _LABEL.match(first_line)
    if match and match.group(1) in letters:
        return letters.index(match.group(1)), reasoning
    normal = _normal(first_line)
    normal_options = [_normal(o) for o in options]
    if normal in normal_options:
        return normal_options.index(normal), reasoning
    contained = [i for i, o in enumerate(normal_options) if o and o in _normal(answer)]
    if contained:
        return max(contained, key=lambda i: len(normal_options[i])), reasoning
    close = difflib.get_close_matches(normal, normal_options, n=1, cutoff=0.75)
    if close:
        return normal_options.index(close[0]), reasoning
    return None, reasoning
