"""Tuning the reasoning prompt with DSPy: train on a question file's `train` split, measure on the rest.

The program tuned is the one `coopgraph eval reasoning --program` loads (`asking.load_program`), asked through the
same adapter, so the demos an optimizer keeps are rendered exactly as they will be asked. The metric is the `fixed`
scorer: the reply read leniently, correct when its letter is any of the question's accepted letters.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import dspy

from coopgraph.evals.optimize import compile_program
from coopgraph.evals.reasoning.asking import ask, declared_reasoning_max, inputs, reasoning_adapter
from coopgraph.evals.reasoning.questions import Question
from coopgraph.evals.reasoning.scoring import read_fixed


def share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


@dataclass
class Accuracy:
    """Questions answered right (fixed scorer) overall and per type, and replies no reading could use."""

    right: int = 0
    unreadable: int = 0
    total: int = 0
    kinds: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    def add(self, question: Question, correct: bool, readable: bool) -> None:
        self.total += 1
        self.right += int(correct)
        self.unreadable += int(not readable)
        self.kinds[question.kind][0] += int(correct)
        self.kinds[question.kind][1] += 1

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.total, "accuracy": share(self.right, self.total),
                "unreadable": share(self.unreadable, self.total),
                "types": {kind: share(*self.kinds[kind]) for kind in ("EC", "TOM", "JP") if kind in self.kinds}}


def example(question: Question) -> dspy.Example:
    """A question as a DSPy example labelled with its first accepted option line (the demo's answer)."""
    lines = dict(zip(question.letters, question.option_lines, strict=True))
    accepted = [letter for letter in question.letters if letter in question.accepted(faithful=False)]
    return dspy.Example(**inputs(question), answer=lines[accepted[0]], reasoning="",
                        id=question.id).with_inputs("context", "options")


def split_questions(questions: list[Question], train: int, held_out: int,
                    seed: int) -> tuple[list[Question], list[Question]]:
    """Up to `train` questions of the `train` split and `held_out` of the others (`test`), both sampled with a seed
    and kept in file order."""
    rng = random.Random(seed)
    pools = ([q for q in questions if q.split == "train"], [q for q in questions if q.split != "train"])
    picked = [rng.sample(pool, min(n, len(pool))) for pool, n in zip(pools, (train, held_out), strict=True)]
    order = {q.id: i for i, q in enumerate(questions)}
    return sorted(picked[0], key=lambda q: order[q.id]), sorted(picked[1], key=lambda q: order[q.id])


def fixed_metric(questions: list[Question]) -> Callable[..., bool]:
    """DSPy metric: the fixed scorer's verdict on the reply to the example's question."""
    by_id = {q.id: q for q in questions}

    def metric(example: dspy.Example, prediction: Any, trace: Any = None) -> bool:
        return read_fixed(by_id[example.id], str(getattr(prediction, "raw", "") or "")).correct

    return metric


def measure(program: dspy.Module, questions: list[Question], lm: Any,
            on_answer: Callable[[bool], None] | None = None) -> Accuracy:
    """Ask each question once through `ask` (as `coopgraph eval reasoning` does) and score it with `fixed`."""
    result = Accuracy()
    for question in questions:
        reading = read_fixed(question, ask(program, question, lm).reply)
        result.add(question, reading.correct, reading.letter is not None)
        if on_answer is not None:
            on_answer(reading.correct)
    return result


def tune(program: dspy.Module, trainset: list[Question], optimizer: str, lm: Any, *, demos: int = 2,
         seed: int = 0) -> dspy.Module:
    """A tuned copy of the reasoning program (few-shot demos, or instructions with `mipro`)."""
    adapter = reasoning_adapter(declared_reasoning_max(lm))
    return compile_program(program, [example(q) for q in trainset], optimizer, lm=lm, adapter=adapter,
                           metric=fixed_metric(trainset), demos=demos, seed=seed)
