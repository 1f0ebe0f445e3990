"""graphs/llmco.yaml, unchanged, on both games with a scripted chat model: the reference's turns, the lettered
list, a copied line executed, anything else a wait counted invalid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import coopgraph
from coopgraph.testing import scripted_lm


def _run(env: str, script: Any, turns: int, tmp: Path) -> Any:
    lm = scripted_lm(script)
    return coopgraph.run(env=env, episode="test/0", team=["llmco", "llmco"], llm=lambda: lm, max_steps=turns,
                         out=tmp), lm


def _copy_line(wanted: str) -> Any:
    """A scripted model that copies the first listed line containing `wanted` (else the first line)."""
    def reply(messages: list[Any], _: dict[str, Any]) -> str:
        lines = [line for line in str(messages[-1].content).splitlines() if line[:3].rstrip(" ").endswith(".")
                 and line[0].isupper() and line[1] == "."]
        chosen = next((line for line in lines if wanted in line), lines[0])
        return f"Analysis: {wanted} looks best. Action: {chosen}"
    return reply


@pytest.mark.parametrize(("env", "game"), [("collab-capture", "We are playing Collab Capture."),
                                           ("collab-escape", "We are playing Collab Escape.")])
def test_the_prompt_is_system_then_game_then_got_it_then_state_and_lettered_actions(env: str, game: str,
                                                                                     tmp_path: Path) -> None:
    _, lm = _run(env, _copy_line("wait"), 1, tmp_path)
    messages = lm.chat_model.calls[0][0]
    assert [m.type for m in messages] == ["system", "human", "ai", "human"]
    assert messages[1].content.startswith(game) and "Analysis: <" in messages[1].content
    assert messages[2].content == "Got it!"
    state = messages[3].content
    assert state.startswith("I am Alice, in room 1.") and "\nA. " in state and "\nB. " in state


def test_capture_a_copied_line_is_played_and_the_game_records_it(tmp_path: Path) -> None:
    result, lm = _run("collab-capture", _copy_line("Move to room 6"), 3, tmp_path)
    assert result.invalid_answers == 0 and len(lm.chat_model.calls) == 6  # one call per player per turn
    events = [json.loads(line) for line in Path(result.trace_path).read_text().splitlines()]
    alice = [e["agents"]["alice"] for e in events if e["type"] == "env_step"]
    assert alice[0]["action"] == "[move] <room> (6)" and alice[0]["room"] == 6


def test_escape_runs_to_its_end_and_an_unlisted_reply_is_a_wait_counted_invalid(tmp_path: Path) -> None:
    result, _ = _run("collab-escape", _copy_line("fix generator"), 20, tmp_path)
    assert result.invalid_answers == 0 and result.metrics["invalid_actions"] == 0
    assert result.steps <= 20 and (result.metrics["caught"] or result.metrics["escaped"] or result.steps == 20)
    bad, _ = _run("collab-escape", ["Analysis: hm. Action: run to the exit"], 1, tmp_path / "bad")
    assert bad.invalid_answers == 2
    events = [json.loads(line) for line in Path(bad.trace_path).read_text().splitlines()]
    plans = [e for e in events if e["type"] == "plan"]
    assert {p["plan"] for p in plans} == {"D. wait", "C. wait"} and all(p["invalid"] for p in plans)
