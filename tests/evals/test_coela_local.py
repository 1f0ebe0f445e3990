"""CoELA with the embedded model for real (slow, run in CI): a short C-WAH episode without a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.record.trace_file import read_events
from coopgraph.runtime.launch import run_configured

pytestmark = pytest.mark.slow


def test_coela_and_mhp_play_a_short_episode_with_the_embedded_model(local_lm, tmp_path: Path) -> None:
    payload = run_configured("cwah", {}, "test/0", ["coela", "mhp"], lambda: local_lm, 12, tmp_path, seed=0)
    assert payload.steps == 12 or payload.success
    events = read_events(payload.trace_path)
    calls = [e for e in events if e["type"] == "llm_call"]
    assert calls, "the graph agent never called the model"
    for call in calls:
        assert call["prompt"] and call["response"] is not None and call["agent"] == "alice"
    plans = [e for e in events if e["type"] == "plan" and e["agent"] == "alice"]
    assert plans and all(p["plan"].startswith("[") for p in plans)
    assert payload.llm_usage["alice"]["llm_calls"] == len(calls)
    summary = next(e for e in events if e["type"] == "run_summary")
    assert summary["invalid_answers"] == sum(1 for e in events if e["type"] == "invalid_answer")
