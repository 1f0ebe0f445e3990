"""Hostile command lines get one clear line (what is wrong, what is allowed) and a non-zero exit, no traceback.

None of these runs an episode or a model: every check happens before the world is stepped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    output = result.output  # stdout and stderr, as a terminal shows them
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {type(result.exception).__name__}: {result.exception}\n{output}")
    return result.exit_code, output


def _one_clear_line(code: int, output: str, *phrases: str) -> None:
    assert code != 0, output
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    for phrase in phrases:
        assert phrase in output, (phrase, output)


@pytest.mark.parametrize(("options", "phrases"), [
    (["--env-opt", "bogus=1"], ["unknown C-WAH option(s) ['bogus']", "known:", "noise"]),
    (["--env-opt", "noise=lots"], ["noise=lots", "noise takes a whole number"]),
    (["--env", "cwah-noisy", "--env-opt", "noise=lots"], ["noise takes a whole number", "cwah-noisy"]),
    (["--env-opt", "walk_speed=fast"], ["walk_speed takes a number"]),
    (["--env-opt", "walk_speed=-1"], ["walk_speed", "greater than 0"]),
    (["--env-opt", "episode=test/1"], ["set it with --episode"]),
    (["--env", "cwah-noisy", "--env-opt", "noise=-1"], ["noise must be >= 0, got -1"]),
    (["--env", "toyhouse", "--env-opt", "bogus=1"], ["unknown toyhouse option(s) ['bogus']", "known:"]),
])
def test_run_refuses_a_bad_env_option(tmp_path: Path, options: list[str], phrases: list[str]) -> None:
    team = "mhp" if "toyhouse" in options else "mhp,mhp"
    code, output = _invoke("run", "--team", team, "--out", str(tmp_path / "runs"), *options)
    _one_clear_line(code, output, "--env-opt", *phrases)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_an_unknown_episode_is_not_blamed_on_the_env_options(tmp_path: Path) -> None:
    code, output = _invoke("run", "--team", "mhp,mhp", "--episode", "test/999", "--env-opt", "noise=1",
                           "--out", str(tmp_path))
    assert code != 0 and "Traceback" not in output
    assert "--env-opt" not in output, output


@pytest.mark.parametrize("value", ["0", "-3"])
def test_run_refuses_a_step_budget_below_one(tmp_path: Path, value: str) -> None:
    code, output = _invoke("run", "--team", "mhp,mhp", "--max-steps", value, "--out", str(tmp_path))
    _one_clear_line(code, output, f"--max-steps must be a whole number of 1 or more, got {value}", "leave it out")


@pytest.mark.parametrize("value", ["1.5", "-1", "abc", "1e3", " ", "0x10"])
def test_run_refuses_a_seed_that_is_not_a_whole_number(tmp_path: Path, value: str) -> None:
    code, output = _invoke("run", "--team", "mhp,mhp", "--seed", value, "--out", str(tmp_path / "runs"))
    _one_clear_line(code, output, "--seed takes a whole number of 0 or more (e.g. --seed 3)")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_run_configured_refuses_a_seed_that_is_not_a_whole_number(tmp_path: Path, bad: object) -> None:
    from coopgraph.runtime.launch import run_configured

    with pytest.raises(ValueError, match="seed must be a whole number of 0 or more"):
        run_configured("cwah", {}, "test/0", ["mhp", "mhp"], "local", 5, tmp_path, seed=bad)  # type: ignore[arg-type]


def test_run_configured_refuses_a_step_budget_below_one(tmp_path: Path) -> None:
    from coopgraph.runtime.launch import run_configured

    for bad in (0, -3):
        with pytest.raises(ValueError, match="max_steps must be a whole number of 1 or more"):
            run_configured("cwah", {}, "test/0", ["mhp", "mhp"], "local", bad, tmp_path)


@pytest.mark.parametrize("below", ["", "sub"])
def test_run_refuses_an_out_that_is_a_file(tmp_path: Path, below: str) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a folder\n", encoding="utf-8")
    out = afile / below if below else afile
    code, output = _invoke("run", "--team", "mhp,mhp", "--out", str(out))
    _one_clear_line(code, output, f"{afile} is a file", "--out takes a folder")
    assert afile.read_text(encoding="utf-8") == "not a folder\n"


def test_eval_refuses_an_out_that_is_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    code, output = _invoke("eval", "cwah-baselines", "--out", str(afile), "--limit", "1")
    _one_clear_line(code, output, "is a file", "--out takes a folder")


@pytest.mark.parametrize(("content", "line"), [(b"name: s\nteams:\n  - \xff\xfe\n", 3), (b"\x00\x01\x02\xff" * 50, 1)])
def test_eval_refuses_a_suite_that_is_not_utf8(tmp_path: Path, content: bytes, line: int) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_bytes(content)
    code, output = _invoke("eval", str(suite), "--out", str(tmp_path / "out"))
    _one_clear_line(code, output, f"{suite}:{line}:", "not UTF-8 text", "must be UTF-8 text")
    assert not (tmp_path / "out").exists()


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_eval_refuses_an_unknown_llm_before_the_first_job_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, output = _invoke("eval", "cwah-baselines", "--team", "MHP", "--limit", "1", "--max-steps", "2",
                           "--out", str(out))
    assert code == 0, output
    stored = _files(out)
    assert "results.sqlite" in stored
    code, output = _invoke("eval", "cwah-baselines", "--llm", "nosuchllm", "--out", str(out))
    _one_clear_line(code, output, "error: --llm: unknown LLM setting 'nosuchllm'", "local-coop-brief",
                    "openai:MODEL")
    assert _files(out) == stored  # no new row, trace or file


TEAMS = "teams:\n  - label: pair\n    members: [mhp, {name: coela, llm: LLM}]\n"
SUITE_WITH = {  # the suite's lines after `name: s`, and what the refusal says (SUITE: the file) on which line
    "world": ("environment:\n  name: cwha\n" + TEAMS.replace("LLM", "local"),
              "SUITE:3:3: environment.name: unknown world 'cwha'; worlds: ", "cwah, cwah-noisy"),
    "suite llm": ("llm: lokal\n" + TEAMS.replace("LLM", "local"), "SUITE:2:1: llm: unknown LLM setting 'lokal'",
                  "local-coop"),
    "member llm": (TEAMS.replace("LLM", "gtp-4"), "SUITE:4:34: teams.0.members.1.llm: unknown LLM setting 'gtp-4'",
                   "openai:MODEL"),
}


@pytest.mark.parametrize("case", sorted(SUITE_WITH))
def test_eval_refuses_a_suite_naming_what_does_not_exist_and_writes_nothing(tmp_path: Path, case: str) -> None:
    body, *phrases = SUITE_WITH[case]
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: s\n{body}", encoding="utf-8")
    code, output = _invoke("eval", str(suite), "--out", str(tmp_path / "out"))
    _one_clear_line(code, output, *[p.replace("SUITE", str(suite)) for p in phrases])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("content", "phrase"), [
    (b"hello, this is not a trace\n", "line 1 is not an event"),
    (b"[1, 2, 3]\n", "line 1 is not an event"),
    (b'{"a": 1}\n{"b": 2}\n', "line 1 is not an event"),
    (bytes(range(256)) * 4, "is not UTF-8 text"),
    (b"", "holds no events"),
    (b'{"type": "manifest"}\nnot json\n{"type": "episode_end"}\n', "line 2 is not an event"),
])
def test_trace_view_refuses_a_file_that_is_not_a_trace(tmp_path: Path, content: bytes, phrase: str) -> None:
    trace = tmp_path / "run.jsonl"
    trace.write_bytes(content)
    code, output = _invoke("trace", "view", str(trace))
    _one_clear_line(code, output, f"{trace} is not a trace", phrase, "JSON Lines")
    assert not trace.with_suffix(".html").exists()


def test_trace_view_still_skips_a_torn_last_line(tmp_path: Path) -> None:
    trace = tmp_path / "run.jsonl"
    trace.write_text(json.dumps({"type": "manifest", "team": ["mhp"]}) + '\n{"type": "env_st', encoding="utf-8")
    code, output = _invoke("trace", "view", str(trace), "--json")
    assert code == 0, output
    assert trace.with_suffix(".html").is_file()


def _sqlite_file(path: Path) -> None:
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("create table checkpoints (id text)")
    db.close()


NOT_TRACES = {  # file -> what the refusal says it is
    "binary": (bytes(range(256)) * 4, "it is a binary file (byte 0x80 on line 2 is not UTF-8 text"),
    "checkpoints": (None, "it is an SQLite database (a run keeps its checkpoints in NAME.checkpoints.sqlite"),
    "empty": (b"", "it is empty, it holds no events"),
    "json_lines": (b'{"a": 1}\n{"b": 2}\n', "line 1 is not an event ('{\"a\": 1}': JSON, but not an object with"),
    "json_document": (b'{\n  "a": 1\n}\n', "line 1 is not an event ('{'): the file is one JSON object, not one "
                      "event per line"),
    "events_of_no_episode": (b'{"type": "manifest"}\n{"type": "env_step"}\n',
                             "is not a coopgraph episode trace: its events (manifest, env_step) have no "
                             "episode_start"),
}


@pytest.mark.parametrize("command", [["fork", "--at", "1"], ["replay", "--agent", "alice", "--decision", "1"]])
@pytest.mark.parametrize("case", sorted(NOT_TRACES))
def test_fork_and_replay_say_what_a_file_that_is_not_a_trace_is(tmp_path: Path, command: list[str],
                                                                 case: str) -> None:
    content, phrase = NOT_TRACES[case]
    trace = tmp_path / "run.jsonl"
    if content is None:
        _sqlite_file(trace)
    else:
        trace.write_bytes(content)
    code, output = _invoke(command[0], str(trace), *command[1:])
    _one_clear_line(code, output, f"error: {trace} is not", phrase, "a trace", "JSON Lines file of events")
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]  # nothing written beside it


def test_a_run_refused_before_its_first_step_prints_its_error_line_alone(tmp_path: Path) -> None:
    code, output = _invoke("run", "--team", "describe_choose,mhp", "--llm", "openai:never-called", "--out",
                           str(tmp_path))  # live output (no --json): no empty line left by a progress bar
    assert code == 2 and output.startswith("error: ") and output.count("\n") == 1, repr(output)
    assert "E313 spec 'describe_choose' is not a team member" in output
