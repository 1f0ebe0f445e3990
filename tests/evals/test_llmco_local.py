"""LLM-Co as published with the embedded model for real (slow, run in CI): a few ticks of Overcooked without a crash,
each reply read as LLM-Co reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.record.trace_file import read_events
from coopgraph.runtime.launch import run_configured

pytestmark = pytest.mark.slow


def test_llmco_and_the_greedy_cook_play_a_few_ticks_with_the_embedded_model(local_lm, tmp_path: Path) -> None:
    payload = run_configured("overcooked", {}, "cramped_room", ["llmco", "greedy"],
                             lambda: local_lm, 6, tmp_path, seed=0)
    assert payload.steps == 6 and "score" in payload.metrics
    events = read_events(payload.trace_path)
    calls = [e for e in events if e["type"] == "llm_call" and e["agent"] == "alice"]
    assert calls and all(c["node"] == "choose_action" and c["response"] is not None for c in calls)
    assert calls[0]["prompt"][2] == {"role": "assistant", "content": "Got it!"}
    plans = [e for e in events if e["type"] == "plan" and e["agent"] == "alice"]
    assert plans and all(p["plan"].endswith(".") for p in plans)  # a feasible action, or `wait.` when unreadable
