"""Accuracy of stored reasoning answers per question type, per game and overall, beside uniform random guessing.

Each trial's accuracy is the mean over its questions; the figure is the mean over trials, with the std over trials
and LLM-Co's error bar (std / sqrt(trials)). Chance is the mean over the same questions of the share of options a
uniform pick gets right, under the same scorer (the faithful one never accepts a letter after `, `).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

from coopgraph.evals.reasoning.questions import KINDS
from coopgraph.evals.reasoning.scoring import Scorer


def group_accuracy(rows: list[dict[str, Any]], scorer: Scorer) -> dict[str, Any]:
    """Accuracy (mean over trials), its spread and chance for one group of answer rows."""
    trials: dict[int, list[float]] = defaultdict(list)
    chance: dict[str, float] = {}
    for row in rows:
        metrics = row["metrics"]
        trials[int(row["repeat"])].append(float(metrics[scorer]))
        chance[row["episode"]] = float(metrics[f"chance_{scorer}"])
    means = [sum(v) / len(v) for _, v in sorted(trials.items())]
    std = statistics.stdev(means) if len(means) > 1 else 0.0
    return {"questions": len(chance), "trials": len(means),
            "accuracy": round(sum(means) / len(means), 4) if means else None,
            "std": round(std, 4), "sem": round(std / math.sqrt(len(means)), 4) if means else None,
            "chance": round(sum(chance.values()) / len(chance), 4) if chance else None}


def accuracy_summary(rows: list[dict[str, Any]], scorer: Scorer) -> dict[str, Any]:
    """Overall, per type (EC, TOM, JP, in that order) and per game, for the rows of one team's configuration."""
    kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    games: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        kinds[row["metrics"]["kind"]].append(row)
        games[row["metrics"]["game"]].append(row)
    order = [k for k in KINDS if k in kinds] + sorted(k for k in kinds if k not in KINDS)
    return {"scorer": scorer, "questions": len({r["episode"] for r in rows}), "answers": len(rows),
            "unreadable": sum(int(r["metrics"]["unreadable"]) for r in rows),
            "overall": group_accuracy(rows, scorer),
            "types": {k: group_accuracy(kinds[k], scorer) for k in order},
            "games": {g: group_accuracy(games[g], scorer) for g in sorted(games)}}
