"""Asking one reasoning question through the nodes' own choice machinery.

The question is a `ChoiceProgram` (the same `dspy.Predict(ChooseOption)` the choice nodes run) rendered by a
`JinjaAdapter` over `prompts/reasoning/ask.j2`: LLM-Co's turns (directive, game description, "Got it!", question).
The options are the question's own lines (`B. No.`), so a grammar-bound backend can only end with one of them
after the explanation the directive asks for, and both scorers read it; other backends answer freely. One reply per
question and trial, as LLM-Co asks once; the sampling is its own (temperature 0.6, top_p 0.9).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from coopgraph.evals.reasoning.questions import Question
from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.nodes.programs import ChoiceProgram, JinjaAdapter, ReplyContract, run_program, signatures

if TYPE_CHECKING:
    import dspy

TEMPLATE = "reasoning/ask"
#: LLM-Co's sampling for its reasoning questions (`src/reasoning_evals/main.py`).
SAMPLING = {"temperature": 0.6, "top_p": 0.9}
#: The longest reply: room for the brief explanation every directive asks for, then the answer.
MAX_TOKENS = 256
EXPLANATION_CHARS = 400


@dataclass(frozen=True)
class Asked:
    """One reply as the trace and the scorers need it."""

    reply: str
    messages: list[dict[str, str]]
    errors: list[str]

    @property
    def failed(self) -> bool:
        """No reply at all because the model could not be reached (not merely an unusable one): asked again on
        resume rather than scored."""
        return not self.reply.strip() and any(not e.startswith("unusable answer") for e in self.errors)


def answer_label(directive: str) -> str:
    """The word the directive's reply format puts before the answer: `Action` (JP) or `Answer`."""
    found = re.search(r"\b(Action|Answer)\s*:", directive)
    return found.group(1) if found else "Answer"


class ReasoningAdapter(JinjaAdapter):
    """The question template's adapter, reading each question's answer label from its own directive, so one adapter
    serves a whole file and a tuned program's demos (EC, TOM or JP) reply in their own form; instructions reach the
    prompt only once an optimizer changed them, so an untuned program asks exactly as LLM-Co does."""

    def constraint_for(self, inputs: dict[str, Any]) -> ChoiceConstraint | None:
        constraint = super().constraint_for(inputs)
        directive = str(inputs.get("context", {}).get("directive", ""))
        return None if constraint is None else dataclasses.replace(constraint, answer_label=answer_label(directive))

    def _turn(self, instructions: str, inputs: dict[str, Any]) -> list[dict[str, str]]:
        tuned = instructions != signatures()["ChooseOption"].instructions
        return super()._turn(instructions if tuned else "", inputs)


def reasoning_adapter(reasoning_chars_max: int | None = None) -> JinjaAdapter:
    """LLM-Co's way of asking; a profile that declares it answers with no explanation (a distilled planner) is
    held to the answer line at once, as the graph checks hold its nodes, instead of rambling to the token cap."""
    explain = EXPLANATION_CHARS if reasoning_chars_max is None else min(EXPLANATION_CHARS, reasoning_chars_max)
    return ReasoningAdapter(
        TEMPLATE, node_name="reasoning.ask", answer_format="text", reasoning_chars=explain,
        max_tokens=MAX_TOKENS, retries=0, free_reasoning=explain > 0, options=SAMPLING,
        reply=ReplyContract("lenient", "Answer", "Explanation", "in_prompt"))


def declared_reasoning_max(lm: Any) -> int | None:
    """The explanation length the LLM's profile says it can give (None: no limit declared)."""
    settings = getattr(lm, "settings_public", None) or {}
    value = settings.get("reasoning_chars_max")
    return None if value is None else int(value)


def inputs(question: Question) -> dict[str, Any]:
    """The program's inputs: template variables and the options."""
    return {"context": {"directive": question.directive, "description": question.description,
                        "question": question.text},
            "options": list(question.option_lines)}


def load_program(path: str | Path | None = None) -> Any:
    """The reasoning program, with the demos `coopgraph optimize` saved when a path is given."""
    program = cast("dspy.Module", ChoiceProgram())  # DspyDeferred builds it as a dspy.Module
    if path is not None:
        program.load(str(path))
    return program


def ask(program: Any, question: Question, lm: Any) -> Asked:
    adapter = reasoning_adapter(declared_reasoning_max(lm))
    given = inputs(question)
    predict = program.predict
    messages = adapter.format(predict.signature, predict.demos, given)
    prediction = run_program(program, adapter, lm, **given)
    reply = str(getattr(prediction, "raw", "") or "")
    errors = [str(e) for e in (getattr(prediction, "errors", None) or [])]
    return Asked(reply, messages, errors)
