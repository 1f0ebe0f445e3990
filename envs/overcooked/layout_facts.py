"""The kitchen's fixed facts for LLM-Co's layout description: its numbered places and which cook reaches which.

LLM-Co opens every prompt with a description of the layout written by hand per layout; here the same facts are
computed from the numbering the state text uses (`kitchen.py`) and the cooks' start cells, with every gate shut:
what kinds of places there are, and, where the kitchen is divided, which places each cook can walk to. The words
are the prompt template's (`prompts/planning/llmco_game.overcooked.j2`); this module only counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coopgraph.envs.overcooked.kitchen import Kitchen
from coopgraph.envs.overcooked.layouts import Cell
from coopgraph.envs.overcooked.mdp import GATE_OPEN_TICKS
from coopgraph.envs.overcooked.paths import reach, step_distances

#: What each of LLM-Co's letters stands for, in the order its lists are written.
KINDS: dict[str, str] = {"o": "onion dispenser", "p": "plate dispenser", "d": "serving spot", "c": "cooker",
                         "s": "shared counter", "k": "kitchen counter", "g": "gate"}


def span(labels: Sequence[str]) -> str:
    """`k0 to k8` for three or more consecutive labels of one letter, else the labels joined with commas."""
    if len(labels) >= 3 and len({label[0] for label in labels}) == 1:
        numbers = [int(label[1:]) for label in labels]
        if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            return f"{labels[0]} to {labels[-1]}"
    return ", ".join(labels)


def _grouped(labels: Sequence[str]) -> list[dict[str, Any]]:
    """Labels grouped by letter in LLM-Co's order, each group with its kind and its short form."""
    groups = []
    for letter, kind in KINDS.items():
        mine = [label for label in labels if label[0] == letter]
        if mine:
            groups.append({"letter": letter, "kind": kind, "labels": mine, "span": span(mine)})
    return groups


def reachable_labels(kitchen: Kitchen, start: Cell) -> list[str]:
    """Every labelled place a cook starting at `start` can walk up to with the gates shut (partner aside)."""
    steps = step_distances(kitchen, start, None)
    return [label for letter in KINDS for label, cell in zip(kitchen.ids(letter), kitchen.places[letter],
                                                            strict=True)
            if reach(kitchen, cell, None, steps).reachable]


def layout_facts(kitchen: Kitchen, starts: Sequence[Cell], names: Sequence[str]) -> dict[str, Any]:
    """The facts LLM-Co's layout description states, as JSON-able data (see the module docstring)."""
    every = [label for letter in KINDS for label in kitchen.ids(letter)]
    reaches = {name: reachable_labels(kitchen, start) for name, start in zip(names, starts, strict=True)}
    shared = [label for label in every if all(label in r for r in reaches.values())]
    # a counter out of everyone's reach is only a wall; a dispenser, pot or serving spot behind a gate is news
    nobody = [label for label in every if label[0] != "k" and not any(label in r for r in reaches.values())]
    divided = any(label not in shared for r in reaches.values() for label in r)
    return {
        "layout": kitchen.layout.rpartition("/")[2],
        "places": _grouped(every),
        "divided": divided,
        "cooks": [{"name": name, "places": _grouped([label for label in r if label not in shared])}
                  for name, r in reaches.items()],
        "both": _grouped(shared),
        "nobody": _grouped(nobody),
        "shared_counters": span(kitchen.ids("s")),
        "gates": span(kitchen.ids("g")),
        "gate_ticks": GATE_OPEN_TICKS,
    }
