"""`coopgraph play --ui terminal`: scripted by standard input, it finishes and prints the result; its trace names
the person's choices, the viewer and `trace diff` read it, and a fork at a human step continues with the member
named in their place."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.record.trace_file import read_events


def test_yes_1_plays_to_the_end_and_prints_json(tmp_path: Path) -> None:
    command = (f"yes 1 | {sys.executable} -m coopgraph play --env cwah --episode test/0 --team human,mhp "
               f"--ui terminal --max-steps 20 --json --out {tmp_path}")
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=300, check=True)
    result = json.loads(done.stdout)
    assert result["steps"] == 20 and result["team"] == ["human", "mhp"] and result["human_agent"] == "alice"
    plans = [e for e in read_events(result["trace_path"]) if e["type"] == "plan" and e.get("human")]
    assert plans and all(p["agent"] == "alice" and p["choice"] == 1 for p in plans)
    assert "1. [goexplore] <kitchen> (60)" in done.stderr  # the prompts go to stderr under --json


def test_end_of_input_idles_and_the_fork_replaces_the_person(tmp_path: Path) -> None:
    runner = CliRunner()
    played = runner.invoke(app, ["play", "--team", "human,mhp", "--ui", "terminal", "--max-steps", "15", "--json",
                                 "--out", str(tmp_path)], input="1\n")
    assert played.exit_code == 0, played.output
    result = json.loads(played.stdout)
    events = read_events(result["trace_path"])
    idles = [e for e in events if e["type"] == "plan" and e.get("idle") == "no answer"]
    assert idles, "after input ends the person waits"
    kept = runner.invoke(app, ["fork", result["trace_path"], "--at", "5", "--json"])
    assert kept.exit_code != 0 and "a person played alice" in kept.output and "--team mhp,mhp" in kept.output
    forked = runner.invoke(app, ["fork", result["trace_path"], "--at", "5", "--team", "mhp,mhp", "--json",
                                 "--out", str(tmp_path / "forks")])
    assert forked.exit_code == 0, forked.output
    fork_trace = json.loads(forked.stdout)["trace_path"]
    viewed = runner.invoke(app, ["trace", "view", result["trace_path"], "-o", str(tmp_path / "v.html"), "--json"])
    assert viewed.exit_code == 0 and json.loads(viewed.stdout)["decisions"] >= len(idles)
    diffed = runner.invoke(app, ["trace", "diff", result["trace_path"], fork_trace, "--json"])
    assert diffed.exit_code == 0 and json.loads(diffed.stdout)["fork"]["step"] == 5


def test_bad_play_input_is_one_line() -> None:
    runner = CliRunner()
    for args, expected in ((["--team", "mhp,mhp"], "exactly one 'human'"), (["--ui", "tty"], "choose web or terminal"),
                           (["--step-limit", "0"], "more than 0 seconds")):
        result = runner.invoke(app, ["play", "--ui", "terminal", *args], input="")
        if "--ui" in args:
            result = runner.invoke(app, ["play", *args], input="")
        assert result.exit_code == 2 and expected in result.output, result.output


def test_a_study_session_on_the_terminal_stores_its_ratings(tmp_path: Path) -> None:
    suite = tmp_path / "study.yaml"
    suite.write_text("name: s\nkind: user-study\nepisodes: [test/0]\nmax_steps: 1\nteams:\n  - label: MHP\n"
                     "    members: [human, mhp]\n", encoding="utf-8")
    runner = CliRunner()
    args = ["play", "--study", str(suite), "--participant", "P3", "--ui", "terminal", "--out", str(tmp_path / "st"),
            "--json"]
    played = runner.invoke(app, args, input="1\n6\n5\ngood partner\n")  # one decision in one step
    assert played.exit_code == 0, played.output
    result = json.loads(played.stdout)
    assert result["ratings"] == {"helpfulness": 6, "trust": 5, "comment": "good partner"}
    rated = [e for e in read_events(result["trace_path"]) if e["type"] == "ratings"]
    assert rated and rated[0]["participant"] == "P3" and rated[0]["agent"] == "alice"
    again = runner.invoke(app, args, input="")
    assert json.loads(again.stdout) == {"study": str(suite), "participant": "P3", "finished": True}
    refused = runner.invoke(app, ["eval", str(suite), "--out", str(tmp_path / "ev")])
    assert refused.exit_code == 2 and "coopgraph play --study" in refused.output
    alone = runner.invoke(app, ["play", "--study", str(suite)])
    assert alone.exit_code == 2 and "--study and --participant go together" in alone.output
