"""Lenient reading of a model's answer: a letter, the option's exact text, or a close fuzzy match.

Grammars make answers exact on llama.cpp, but OpenAI-style servers and fakes answer freely, so the
parser accepts what a reasonable reader would and returns None for anything else.
"""

from __future__ import annotations

import difflib
import re

from coopgraph.llm.constraints import ChoiceConstraint, letter

_ANSWER = re.compile(r"answer\s*[:\-]\s*", re.IGNORECASE)
_REASONING = re.compile(r"^\s*reasoning\s*:\s*", re.IGNORECASE)
_LABEL = re.compile(r"^[\s\"'(\[*]*([A-Z]{1,2})(?:[\s\"').\]:*,]|$)")


def split_reasoning(text: str) -> tuple[str, str]:
    """Return (reasoning, answer part) around the last `Answer:` marker."""
    matches = list(_ANSWER.finditer(text))
    if not matches:
        return "", text.strip()
    last = matches[-1]
    reasoning = _REASONING.sub("", text[: last.start()]).strip()
    return reasoning, text[last.end():].strip()


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().strip("\"'`.").lower())


def parse_choice(text: str, constraint: ChoiceConstraint) -> tuple[int | None, str]:
    """Map a reply to an option index (or None) and return the reasoning that preceded it."""
    reasoning, answer = split_reasoning(text or "")
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
