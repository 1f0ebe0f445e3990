"""`coopgraph replay` on a run made with checkpoints on disk, and its one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.runtime.launch import run_configured
from coopgraph.testing import scripted_lm
from tests.runtime.test_replay_decision import by_prompt


@pytest.fixture()
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(by_prompt()))
    payload = run_configured("toyhouse", {}, "toyhouse/0", ["coela", "toyhouse-expert"],
                             lambda: scripted_lm(by_prompt()), 10, tmp_path, keep_checkpoints=True)
    assert payload.replay == f"coopgraph replay {payload.trace_path} --agent agent_0 --decision 1"
    assert Path(payload.trace_path).with_suffix(".checkpoints.sqlite").is_file()
    return Path(payload.trace_path)


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_replay_prints_the_prompt_and_says_it_matches_the_run(trace: Path) -> None:
    code, output = _invoke("replay", str(trace), "--agent", "agent_0", "--decision", "2")
    assert code == 0, output
    assert "same as the run" in output and "Actions" in output
    code, output = _invoke("replay", str(trace), "--agent", "agent_0", "--decision", "2", "--json")
    payload = json.loads(output)
    assert payload["differs"] is False and payload["plan"] == payload["original"]["plan"]


@pytest.mark.parametrize(("args", "message"), [
    (("--agent", "agent_1", "--decision", "1"), "agents with checkpoints: agent_0"),
    (("--agent", "agent_0", "--decision", "400"), "there is no decision 400"),
    (("--agent", "agent_0"), "name one decision"),
])
def test_replay_errors_are_one_line(trace: Path, args: tuple[str, ...], message: str) -> None:
    code, output = _invoke("replay", str(trace), *args)
    assert code == 2 and message in " ".join(output.split()) and "Traceback" not in output


def test_replay_of_a_missing_or_foreign_file(tmp_path: Path) -> None:
    code, output = _invoke("replay", str(tmp_path / "nope.jsonl"), "--agent", "a", "--decision", "1")
    assert code == 2 and "no such trace file" in output
    other = tmp_path / "notes.jsonl"
    other.write_text('{"type": "note"}\n')
    code, output = _invoke("replay", str(other), "--agent", "a", "--decision", "1")
    assert code == 2 and "not a coopgraph episode trace" in " ".join(output.split())


