"""Writing generated questions in LLM-Co's CSV format: lettered options, answer letters, coopgraph's own directives,
and a `Split` column (`train` / `test`, by a hash of the row's world and layout, so a layout never straddles both).

The world modules (`generate_overcooked`, `generate_cwah`, `generate_tdw_mat`) compute the answers; this module
only words, samples and stores them.
The Collab games' rows come from `coopgraph.envs.collab.reasoning` when that module exists.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import importlib
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from coopgraph.evals.reasoning.questions import COLUMNS, SPLIT_COLUMN
from coopgraph.llm.constraints import letter

#: coopgraph's directives per question type; each names the reply's labels, as LLM-Co's do.
DIRECTIVES = {
    "EC": "You help me understand the game I am playing. I will describe the current state, ask one question about "
          "it and list the possible answers. Reply as: Explanation: <why, in one or two sentences> Answer: <the "
          "letter and text of one listed answer>. Nothing else. Understood?",
    "TOM": "You help me understand what my partner is doing. I will describe the current state, ask about my "
           "partner's intention and list the possibilities. Reply as: Explanation: <why, in one or two sentences> "
           "Answer: <the letter and text of one listed answer>. Nothing else. Understood?",
    "JP": "You help me plan with my partner. I will describe the current state and list the actions open to me; "
          "pick the one that helps the team most. Reply as: Explanation: <why, in one or two sentences> "
          "Action: <the letter and text of one listed action>. Nothing else. Understood?",
}
HEADERS = {"EC": "Available Answers:", "TOM": "Available Answers:", "JP": "Available Actions:"}
COLLAB_MODULE = "coopgraph.envs.collab.reasoning"
TEST_SHARE = 0.3


T = TypeVar("T")


def frozen(belief: T, *shared: object) -> T:
    """A deep copy of a belief that shares the parts nothing changes (floor plan, rooms, rules), so freezing one at
    every decision stays cheap."""
    return copy.deepcopy(belief, {id(part): part for part in shared})


@dataclass(frozen=True)
class Choice:
    """Options in order and the indices of the correct ones (one, or several on a tie)."""

    options: list[str]
    correct: list[int]


def sample_choice(options: list[str], answer: str, rng: random.Random) -> Choice:
    """The answer and two to four other options, shuffled (worlds list the nearest or likeliest first, and the
    baselines often take it: a fixed order would reward always answering A)."""
    others = [o for o in dict.fromkeys(options) if o != answer]
    keep = [answer, *rng.sample(others, min(len(others), rng.randint(2, 4)))]
    rng.shuffle(keep)
    return Choice(keep, [keep.index(answer)])


def count_choice(answer: int, rng: random.Random, width: int = 4) -> Choice:
    """`width` consecutive counts from zero or above that hold the answer, shuffled (small answers such as none
    yet are common, and counts in order would put them first)."""
    start = max(0, answer - rng.randrange(width))
    options = [str(n) for n in range(start, start + width)]
    rng.shuffle(options)
    return Choice(options, [options.index(str(answer))])


def lettered(question: str, kind: str, choice: Choice) -> str:
    lines = [f"{letter(i)}. {text}" for i, text in enumerate(choice.options)]
    return "\n".join([question.rstrip(), HEADERS[kind], *lines])


def question_row(*, game: str, layout: str, state: str, description: str, ec: tuple[str, Choice],
                 tom: tuple[str, Choice], jp: tuple[str, Choice], concept: str,
                 directives: dict[str, str]) -> dict[str, str]:
    """One CSV row: the three questions with their options, answers and answer letters."""
    row = {column: "" for column in COLUMNS}
    for kind, (text, choice) in (("EC", ec), ("TOM", tom), ("JP", jp)):
        row[f"{kind} Question"] = lettered(text, kind, choice)
        row[f"{kind} Answer"] = "; ".join(choice.options[i] for i in choice.correct)
        row[f"{kind} Answer Ordinal"] = ",".join(letter(i) for i in choice.correct)
        row[f"{kind} Directive"] = directives[kind]
    row.update({"Game Description": description, "Game": game, "Map": layout, "State": state,
                "State Description": state, "Concept": concept, "Tags": "generated", "Scenario": concept})
    return row


def split_of(game: str, layout: str) -> str:
    """`test` for about 30% of the layouts (houses, kitchens) of each world, `train` for the rest."""
    value = int(hashlib.sha256(f"{game}/{layout}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if value < TEST_SHARE else "train"


def collab_rows(seed: int, n: int) -> list[dict[str, str]]:
    """The Collab games' rows when their module ships (another part of the project builds it), else none."""
    try:
        module = importlib.import_module(COLLAB_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name is not None and COLLAB_MODULE.startswith(exc.name):
            return []
        raise
    rows: list[dict[str, str]] = module.reasoning_rows(seed, n)
    return rows


def generate(seed: int = 0, per_world: int = 34,
             worlds: dict[str, Callable[[int, int], list[dict[str, str]]]] | None = None) -> list[dict[str, str]]:
    """Rows of every world, each world's rows in a fixed order for a seed, with their split."""
    from coopgraph.evals.reasoning import generate_cwah, generate_overcooked, generate_tdw_mat

    makers = worlds or {"overcooked": generate_overcooked.world_rows, "cwah": generate_cwah.world_rows,
                        "tdw-mat": generate_tdw_mat.world_rows, "collab": collab_rows}
    rows: list[dict[str, str]] = []
    for make in makers.values():
        for row in make(seed, per_world):
            rows.append({**row, SPLIT_COLUMN: row.get(SPLIT_COLUMN) or split_of(row["Game"], row["Map"])})
    return rows


def write_rows(rows: list[dict[str, str]], path: Path) -> dict[str, Any]:
    """Write the CSV (LLM-Co's columns, then `Split`) and say what it holds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=[*COLUMNS, SPLIT_COLUMN], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    games = Counter(r["Game"] for r in rows)
    splits = Counter(r[SPLIT_COLUMN] for r in rows)
    return {"path": str(path), "rows": len(rows), "questions": 3 * len(rows), "games": dict(games),
            "splits": dict(splits)}
