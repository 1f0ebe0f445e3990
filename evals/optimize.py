"""Tune a choice node's DSPy program on expert decision points, and measure it before and after.

The program tuned is the node's own (`node_context` builds it from the spec, with any program it already
names), run through the node's adapter, so the demos and instructions an optimizer picks are rendered by the
same template the graph uses. Saved as DSPy JSON, the result is named in a spec with `program:`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dspy

from coopgraph.graphs.compiler import node_context
from coopgraph.graphs.loader import LoadedSpec, load_spec
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for, run_program

OPTIMIZERS = ("labeled", "bootstrap", "random-search", "mipro")


@dataclass
class Agreement:
    """How often a program picked the expert's option on a set of decision points."""

    agree: int = 0
    invalid: int = 0
    first_option: int = 0
    total: int = 0
    answers: list[int | None] = field(default_factory=list)

    def share(self, count: int) -> float:
        return round(count / self.total, 4) if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.total, "agreement": self.share(self.agree), "invalid": self.share(self.invalid),
                "first_option": self.share(self.first_option)}


def choice_node(loaded: LoadedSpec, node: str | None = None) -> str:
    """The node to tune: the one named, else the spec's `planning.choose_action` node."""
    nodes = loaded.spec.nodes
    if node is not None:
        if node not in nodes:
            raise KeyError(f"spec {loaded.spec.name!r} has no node {node!r}; nodes: {', '.join(nodes)}")
        return node
    for node_id, spec in nodes.items():
        if spec.use == "planning.choose_action":
            return node_id
    raise KeyError(f"spec {loaded.spec.name!r} has no planning.choose_action node; name one with --node")


#: What an example is built from (and `split` to divide them): `coopgraph optimize` refuses a point without them.
EXAMPLE_KEYS = ("id", "split", "facts", "options", "expert_choice")


def examples(decisions: list[dict[str, Any]]) -> list[dspy.Example]:
    """DSPy examples labelled with the expert's option (points with a single option need no model)."""
    return [
        dspy.Example(context=d["facts"], options=d["options"], answer=d["expert_choice"], reasoning="",
                     id=d["id"]).with_inputs("context", "options")
        for d in decisions if len(d["options"]) >= 2
    ]


def split_examples(decisions: list[dict[str, Any]], train: int, held_out: int,
                   seed: int) -> tuple[list[dspy.Example], list[dspy.Example]]:
    """Train on the `train` split's points and measure on the others, both sampled with a seed."""
    rng = random.Random(seed)
    pool_train = examples([d for d in decisions if d["split"] == "train"])
    pool_held = examples([d for d in decisions if d["split"] != "train"])
    return rng.sample(pool_train, min(train, len(pool_train))), rng.sample(pool_held, min(held_out, len(pool_held)))


def sample_examples(decisions: list[dict[str, Any]], n: int, seed: int) -> list[dspy.Example]:
    """`n` points of a whole file (any split), seeded: held-out houses measured apart from training ones."""
    pool = examples(decisions)
    return random.Random(seed).sample(pool, min(n, len(pool)))


def agrees(example: dspy.Example, prediction: Any, trace: Any = None) -> bool:
    """DSPy metric: the program chose the expert's option."""
    return bool(getattr(prediction, "valid", True)) and getattr(prediction, "answer", None) == example.answer


class NodeTuner:
    """One spec node's program, adapter and LM, for measuring and optimizing it outside the graph."""

    def __init__(self, spec: str | Path, lm: Any, *, node: str | None = None, env: str = "cwah") -> None:
        self.loaded = load_spec(spec)
        self.node = choice_node(self.loaded, node)
        self.lm = lm
        self.ctx = node_context(self.loaded, self.node, AgentResources(env=env, lm=lm))
        self.adapter = adapter_for(self.ctx)

    @property
    def program(self) -> dspy.Module:
        return self.ctx.program

    def measure(self, program: dspy.Module, points: list[dspy.Example],
                on_row: Callable[[bool], None] | None = None) -> Agreement:
        result = Agreement()
        for example in points:
            prediction = run_program(program, self.adapter, self.lm, context=example.context, options=example.options)
            index = getattr(prediction, "index", None)
            result.total += 1
            result.answers.append(index)
            result.invalid += int(not getattr(prediction, "valid", True))
            result.first_option += int(index == 0)
            hit = agrees(example, prediction)
            result.agree += int(hit)
            if on_row is not None:
                on_row(hit)
        return result

    def optimize(self, trainset: list[dspy.Example], optimizer: str = "bootstrap", *, demos: int = 2,
                 seed: int = 0) -> dspy.Module:
        """Compile a tuned copy of the node's program; the node's adapter and LM render and answer every call."""
        return compile_program(self.program, trainset, optimizer, lm=self.lm, adapter=self.adapter, metric=agrees,
                               demos=demos, seed=seed)


def compile_program(program: dspy.Module, trainset: list[dspy.Example], optimizer: str, *, lm: Any, adapter: Any,
                    metric: Callable[..., bool], demos: int = 2, seed: int = 0) -> dspy.Module:
    """A tuned copy of a program by one of DSPy's optimizers (`OPTIMIZERS`), every call rendered by `adapter` and
    answered by `lm`, so what is tuned is the prompt the program is later asked with."""
    student = program.deepcopy()
    with dspy.context(lm=lm, adapter=adapter):
        if optimizer == "labeled":
            return dspy.LabeledFewShot(k=demos).compile(student, trainset=trainset, sample=True)
        if optimizer == "bootstrap":
            tuner = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=demos, max_labeled_demos=demos,
                                          max_rounds=1)
            return tuner.compile(student, trainset=trainset)
        if optimizer == "random-search":
            tuner = dspy.BootstrapFewShotWithRandomSearch(
                metric=metric, max_bootstrapped_demos=demos, max_labeled_demos=demos, num_candidate_programs=4,
                num_threads=1)
            return tuner.compile(student, trainset=trainset)
        if optimizer == "mipro":
            tuner = dspy.MIPROv2(metric=metric, auto="light", max_bootstrapped_demos=demos,
                                 max_labeled_demos=demos, num_threads=1, seed=seed, verbose=False)
            return tuner.compile(student, trainset=trainset, requires_permission_to_run=False)
    raise ValueError(f"unknown optimizer {optimizer!r}; use one of: {', '.join(OPTIMIZERS)}")
