"""The five C-WAH task types (CoELA table 3) and how an episode's counted goal is drawn from one.

"dinnertable" in the paper's table is the kitchen's `kitchentable` here, as in CoELA's own prompts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class TaskType:
    """A household activity: which relation, onto/into which furniture class, for which object classes."""

    key: str
    title: str
    relation: Literal["ON", "IN"]
    target_class: str
    object_classes: tuple[str, ...]


TASK_TYPES: dict[str, TaskType] = {
    task.key: task
    for task in (
        TaskType(
            "prepare_afternoon_tea",
            "Prepare afternoon tea",
            "ON",
            "coffeetable",
            ("cupcake", "pudding", "apple", "juice", "wine"),
        ),
        TaskType("wash_dishes", "Wash dishes", "IN", "dishwasher", ("plate", "fork")),
        TaskType(
            "prepare_a_meal",
            "Prepare a meal",
            "ON",
            "kitchentable",
            ("coffeepot", "cupcake", "pancake", "poundcake", "pudding", "apple", "juice", "wine"),
        ),
        TaskType(
            "put_groceries",
            "Put groceries",
            "IN",
            "fridge",
            ("cupcake", "pancake", "poundcake", "pudding", "apple", "juice", "wine"),
        ),
        TaskType("set_up_dinner_table", "Set up a dinner table", "ON", "kitchentable", ("plate", "fork")),
    )
}

MIN_SUBGOALS = 3
MAX_SUBGOALS = 5


def sample_goal_counts(task: TaskType, rng: random.Random) -> dict[str, int]:
    """Pick object classes and counts summing to 3–5 subgoals, every chosen class at least once."""
    total = rng.randint(MIN_SUBGOALS, MAX_SUBGOALS)
    if len(task.object_classes) <= 2:
        classes = list(task.object_classes)
    else:
        distinct = rng.randint(max(2, total - 1), min(total, len(task.object_classes)))
        classes = rng.sample(task.object_classes, distinct)
    counts = dict.fromkeys(classes, 1)
    for _ in range(total - len(classes)):
        counts[rng.choice(classes)] += 1
    return counts
