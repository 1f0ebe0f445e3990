"""The embedded model for real (slow, run in CI): the grammar forces a valid option, usage is counted."""

from __future__ import annotations

import pytest

from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.interface import ChatRequest
from coopgraph.nodes.choice_parsing import parse_choice

pytestmark = pytest.mark.slow

OPTIONS = tuple(f"[gocheck] <cabinet> ({i})" for i in range(9)) + ("[gograb] <apple> (302)",)


def test_constrained_choice_among_ten_options_is_always_valid(local_lm) -> None:
    constraint = ChoiceConstraint(OPTIONS, reasoning_chars=60)
    messages = [
        {"role": "system", "content": "You help put an apple in the fridge."},
        {"role": "user", "content": "Actions:\n" + "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(OPTIONS))
         + "\n\n" + constraint.instructions()},
    ]
    done = local_lm.complete(ChatRequest(messages, constraint=constraint, max_tokens=60))
    index, reasoning = parse_choice(done.text, constraint)
    assert index is not None and done.text.startswith("Reasoning: ")
    assert done.prompt_tokens > 50 and done.completion_tokens > 2


def test_text_answers_are_exact_option_text(local_lm) -> None:
    constraint = ChoiceConstraint(("open the fridge", "wait"), answer_format="text", reasoning_chars=0)
    done = local_lm.complete(ChatRequest(
        [{"role": "user", "content": "You want a cold drink.\nA. open the fridge\nB. wait\n\n"
          + constraint.instructions()}], constraint=constraint, max_tokens=12))
    assert done.text in ("Answer: open the fridge", "Answer: wait")
