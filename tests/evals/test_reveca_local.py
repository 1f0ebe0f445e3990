"""REVECA with the embedded model for real (slow, run in CI): a short Noisy-C-WAH episode without a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.record.trace_file import read_events
from coopgraph.runtime.launch import run_configured

pytestmark = pytest.mark.slow


def test_reveca_and_mhp_play_a_short_noisy_episode_with_the_embedded_model(local_lm, tmp_path: Path) -> None:
    payload = run_configured("cwah-noisy", {"noise": 10}, "test/0", ["reveca", "mhp"], lambda: local_lm, 10,
                             tmp_path, seed=0)
    assert payload.steps == 10 or payload.success
    events = read_events(payload.trace_path)
    calls = [e for e in events if e["type"] == "llm_call" and e["agent"] == "alice"]
    assert calls, "REVECA never called the model"
    assert all(c["response"] is not None for c in calls)
    plans = [e for e in events if e["type"] == "plan" and e["agent"] == "alice"]
    assert plans and all(p["plan"].startswith("[") for p in plans)
    said = [e for e in events if e["type"] == "message" and e["agent"] == "alice"]
    assert said and said[0]["text"].startswith("Hi, this is Alice.")  # the start-up exchange
