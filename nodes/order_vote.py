"""Asking one choice with the options in several orders and taking the majority.

Small models favour a position (Qwen 1.5B says "A" far more often than chance); rotating the list and
voting cancels that bias at the price of one call per order. The rotated prompts differ only in their
last lines, so a server's prefix cache serves the rest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def rotation(n: int, k: int, orders: int) -> list[int]:
    """The k-th of `orders` evenly spaced rotations of n options, as original indices in shown order."""
    shift = (k * n) // orders
    return list(range(shift, n)) + list(range(shift))


@dataclass
class OrderVote:
    """The winning option (an index into the original list, or None if no order got a usable answer)."""

    index: int | None
    reasoning: str = ""
    votes: list[int | None] = field(default_factory=list)
    raw: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.index is not None


def choose_in_orders(ask: Callable[[list[str]], Any], options: list[str], orders: int = 1) -> OrderVote:
    """Ask `ask(shown_options)` once per rotation and return the most voted option.

    `ask` returns a prediction with `valid`, `index` (into what it was shown) and `reasoning`. Invalid
    answers do not vote; a tie goes to the option voted first (the original order's answer when it was usable).
    """
    orders = max(1, min(orders, len(options)))
    votes: list[int | None] = []
    reasons: dict[int, str] = {}
    raw = ""
    errors: list[str] = []
    for k in range(orders):
        order = rotation(len(options), k, orders)
        prediction = ask([options[i] for i in order])
        if not prediction.valid:
            votes.append(None)
            raw = raw or str(prediction.get("raw", ""))
            errors.extend(prediction.get("errors", []) or [])
            continue
        chosen = order[prediction.index]
        votes.append(chosen)
        reasons.setdefault(chosen, str(prediction.get("reasoning", "")))
    counts = Counter(v for v in votes if v is not None)
    if not counts:
        return OrderVote(None, votes=votes, raw=raw, errors=errors)
    top = max(counts.values())
    winner = next(v for v in votes if v is not None and counts[v] == top)
    return OrderVote(winner, reasons[winner], votes, raw, errors)
