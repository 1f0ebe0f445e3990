"""CaPo with the embedded model for real (slow, run in CI): two CaPo agents discuss a meta-plan and keep going."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.record.trace_file import read_events
from coopgraph.runtime.launch import run_configured

pytestmark = pytest.mark.slow


def test_two_capo_agents_discuss_and_play_a_short_episode_with_the_embedded_model(local_lm, tmp_path: Path) -> None:
    # one discussion round keeps the CPU time of CI bounded; the round budget itself is tested with fakes
    payload = run_configured("cwah", {}, "test/0", ["capo-rounds1", "capo-rounds1"], lambda: local_lm, 7, tmp_path,
                             seed=0)
    assert payload.steps == 7 or payload.success
    events = read_events(payload.trace_path)
    discussion = [e for e in events if e["type"] == "discussion"]
    assert any(e["agent"] == "alice" and e["what"].endswith("plan 1.1") for e in discussion)
    assert any(e["agent"] == "bob" and e["what"] == "adopt plan 1.1" for e in discussion)
    talk = [m for m in payload.messages if m.text.startswith("[capo ")]
    assert talk[0].sender == "alice" and talk[0].text.startswith("[capo plan 1.1] ")
    assert any(m.sender == "bob" and m.text.startswith("[capo feedback 1.1 ") for m in talk)
    calls = [e for e in events if e["type"] == "llm_call"]
    assert {c["node"] for c in calls} >= {"design_plan", "evaluate_plan", "choose_action"}
    assert any(e["type"] == "plan" and not e["plan"].startswith("[send_message]") for e in events)
