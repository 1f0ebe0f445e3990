"""Distillation pairs: the served prompt byte for byte, the expert's action as the answer, deterministic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.decisions import DecisionRenderer, generate
from coopgraph.evals.distill.data import DISTILL_PARAMS, chat_prompt, example, write_examples


@pytest.fixture(scope="module")
def decisions() -> list[dict[str, Any]]:
    return list(generate("cwah", "train", ["mhp", "mhp"], limit_episodes=2, oracle_restarts=20))


def test_prompt_is_chatml_of_the_nodes_messages_without_reasoning(decisions: list[dict[str, Any]]) -> None:
    renderer = DecisionRenderer("coela")
    point = next(d for d in decisions if len(d["options"]) >= 2)
    pair = example(point, renderer)
    messages = renderer.messages(point["facts"], point["options"], params=DISTILL_PARAMS)
    assert pair is not None and pair["prompt"] == chat_prompt(messages)
    assert pair["prompt"].startswith("<|im_start|>system\n") and pair["prompt"].endswith("<|im_start|>assistant\n")
    assert "Reasoning:" not in pair["prompt"] and "Answer: <one option copied exactly>" in pair["prompt"]
    assert pair["completion"] == f"Answer: {point['options'][point['expert_index']]}"


def test_single_option_and_unmapped_oracle_points_are_skipped(decisions: list[dict[str, Any]]) -> None:
    renderer = DecisionRenderer("coela")
    single = {**decisions[0], "options": decisions[0]["options"][:1], "expert_index": 0}
    assert example(single, renderer) is None
    unmapped = next(d for d in decisions if d["oracle_index"] is None and len(d["options"]) >= 2)
    assert example(unmapped, renderer, label="oracle") is None


def test_pairs_file_is_deterministic_and_counts_splits(tmp_path: Path, decisions: list[dict[str, Any]]) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    counts = write_examples(decisions, first)
    write_examples(decisions, second)
    assert first.read_bytes() == second.read_bytes()
    rows = [json.loads(line) for line in first.read_text().splitlines()]
    assert sum(counts.values()) == len(rows) == sum(len(d["options"]) >= 2 for d in decisions)
    assert {r["split"] for r in rows} == set(counts)
