"""`coopgraph fork` end to end, and the one-line errors of `fork` and `replay` on traces they cannot use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.runtime.launch import run_configured
from coopgraph.testing import scripted_lm
from tests.runtime.test_fork import MISLEAD
from tests.runtime.test_replay_decision import by_prompt


@pytest.fixture(scope="module")
def mhp_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mhp-cli")
    payload = run_configured("cwah", {}, "test/0", ["mhp", "mhp"], "local", None, folder, trace_name="run.jsonl",
                             keep_checkpoints=True)
    return Path(payload.trace_path)


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_fork_with_a_message_then_trace_diff_shows_where_the_runs_part(mhp_trace: Path, tmp_path: Path) -> None:
    code, output = _invoke("fork", str(mhp_trace), "--at", "20", "--say", f"alice:{MISLEAD}", "--out",
                           str(tmp_path), "--json")
    assert code == 0, output
    payload = json.loads(output)
    assert payload["forked_from"]["step"] == 20 and Path(payload["trace_path"]).parent == tmp_path
    code, output = _invoke("trace", "diff", str(mhp_trace), payload["trace_path"], "--json")
    summary = json.loads(output)
    assert summary["fork"]["step"] == 20 and summary["fork"]["first_difference"] == 21
    code, output = _invoke("fork", str(mhp_trace), "--at", "0", "--out", str(tmp_path))
    assert code == 0 and "success in 62 steps" in output and "coopgraph trace diff" in output
    code, output = _invoke("fork", str(mhp_trace), "--at", "20", "--say", f"alice:{MISLEAD}", "--out", str(tmp_path))
    lines = [line.strip() for line in output.splitlines()]
    assert code == 0 and lines[0] == f"step 20: alice says {MISLEAD}"  # the fork's own events, not the copied ones
    assert "step 20: bob → [goput] <coffeetable> (111)" in lines and "not finished in 250 steps" in output


@pytest.mark.parametrize(("args", "message"), [
    (("--at", "500"), "--at 500 is out of range: "),
    (("--at", "500"), "ran from step 0 to 62; fork at a step from 0 to 61"),
    (("--at", "3", "--say", "alice"), "--say takes AGENT:TEXT"),
    (("--at", "3", "--say", "carol:hello"), "no agent 'carol' in this run; agents: alice (mhp), bob (mhp)"),
    (("--at", "3", "--team", "mhp"), "--team names 1 member but the run has 2 agents"),
    (("--at", "3", "--team", "mhp,mhp,mhp"), "name one member per agent"),
    (("--at", "3", "--team", "mhp,nobody"), "unknown team member 'nobody'; baselines:"),
    (("--at", "3", "--llm", "local-tiny"), "--llm changes graph members' model"),
    (("--at", "3", "--seed", "2"), "--seed changes graph members' model seeds, and this team has none"),
    (("--at", "3", "--seed", "two"), "--seed two: --seed takes a whole number of 0 or more"),
])
def test_fork_errors_are_one_line(mhp_trace: Path, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    code, output = _invoke("fork", str(mhp_trace), "--out", str(tmp_path), *args)
    assert code == 2 and message in " ".join(output.split()) and "Traceback" not in output
    assert len(output.strip().splitlines()) <= 3 and not list(tmp_path.iterdir())  # one line (wrapped), no run


def test_fork_and_replay_of_a_run_without_checkpoints_say_what_it_needs(mhp_trace: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    code, output = _invoke("replay", str(mhp_trace), "--agent", "alice", "--decision", "1")
    assert code == 2 and "records no agent checkpoints (members: alice (mhp), bob (mhp))" in " ".join(output.split())
    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(by_prompt()))
    payload = run_configured("toyhouse", {}, "toyhouse/0", ["coela-brief", "toyhouse-expert"],
                             lambda: scripted_lm(by_prompt()), 10, tmp_path, trace_name="memory.jsonl")
    code, output = _invoke("fork", payload.trace_path, "--at", "4")
    assert code == 2 and "kept its checkpoints in memory" in output and "`coopgraph run`" in " ".join(output.split())
    code, output = _invoke("fork", str(tmp_path / "nope.jsonl"), "--at", "1")
    assert code == 2 and "no such trace file" in output


def test_replay_names_the_steps_an_agent_took_and_fork_takes_another_model(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str | None] = []

    def make_lm(setting: str | None = None, **_: object) -> object:
        asked.append(setting)
        return scripted_lm(by_prompt())

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", make_lm)
    payload = run_configured("toyhouse", {}, "toyhouse/0", ["coela-brief", "toyhouse-expert"],
                             lambda: scripted_lm(by_prompt()), 10, tmp_path, keep_checkpoints=True)
    code, output = _invoke("replay", payload.trace_path, "--agent", "agent_0", "--step", "99")
    assert code == 2 and "agent_0 took no step 99; its steps run from 0 to" in output
    code, output = _invoke("fork", payload.trace_path, "--at", "6", "--json")
    assert code == 0, output
    assert json.loads(output)["forked_from"]["changes"] == {"llm": None, "team": None, "say": None, "seed": None}
    code, output = _invoke("fork", payload.trace_path, "--at", "6", "--llm", "local-tiny", "--json")
    assert code == 0, output
    assert json.loads(output)["forked_from"]["changes"]["llm"] == "local-tiny" and asked[-1] == "local-tiny"


def test_fork_trace_names_the_file_and_never_overwrites_one(mhp_trace: Path, tmp_path: Path) -> None:
    target = tmp_path / "told.jsonl"
    code, output = _invoke("fork", str(mhp_trace), "--at", "5", "--trace", str(target), "--json")
    assert code == 0, output
    assert json.loads(output)["trace_path"] == str(target) and target.is_file()
    before = target.read_bytes()
    code, output = _invoke("fork", str(mhp_trace), "--at", "5", "--trace", str(target))
    assert code == 2 and "exists" in output and target.read_bytes() == before
    code, output = _invoke("fork", str(mhp_trace), "--at", "5", "--trace", str(tmp_path / "told.txt"))
    assert code == 2 and ".jsonl" in output
