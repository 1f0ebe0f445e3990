"""The command line: validate reports located errors without tracebacks, --json is machine-readable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from coopgraph.cli import app

BAD = Path(__file__).parents[1] / "graphs" / "fixtures" / "bad"
GOOD = Path(__file__).parents[1] / "graphs" / "fixtures" / "good"
runner = CliRunner()


def test_validate_every_bad_fixture_exits_nonzero_with_locations() -> None:
    for path in sorted(BAD.glob("*.yaml")):
        result = runner.invoke(app, ["graph", "validate", str(path)])
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert f"{path.name}:" in result.output and " E" in result.output


def test_validate_as_a_real_process_prints_no_traceback() -> None:
    paths = [str(BAD / "bad_indent.yaml"), str(BAD / "python_tag.yaml"), str(GOOD / "base.yaml")]
    result = subprocess.run([sys.executable, "-m", "coopgraph", "graph", "validate", *paths],
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 1 and "Traceback" not in output
    assert "bad_indent.yaml:6:" in output and "python_tag.yaml:5:" in output and "ok " in output


def test_validate_json_prints_the_resolved_spec() -> None:
    result = runner.invoke(app, ["graph", "validate", "--json", str(GOOD / "ablation.yaml")])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    resolved = payload["specs"][0]["resolved"]
    assert resolved["nodes"]["choose"]["use"] == "planning.choose_action"
    assert resolved["nodes"]["choose"]["params"]["answer_format"] == "text"
    assert resolved["extends"] == "base.yaml"


def test_validate_json_lists_errors() -> None:
    result = runner.invoke(app, ["graph", "validate", "--json", str(BAD / "unknown_node.yaml")])
    assert result.exit_code == 1
    errors = json.loads(result.stdout)["specs"][0]["errors"]
    assert errors[0]["code"] == "E202" and errors[0]["line"] == 7


def test_draw_prints_mermaid() -> None:
    result = runner.invoke(app, ["graph", "draw", "describe_choose"])
    assert result.exit_code == 0 and result.stdout.startswith("flowchart TD")


def test_nodes_json_lists_contracts() -> None:
    payload = json.loads(runner.invoke(app, ["nodes", "--json"]).stdout)
    choose = next(n for n in payload["nodes"] if n["name"] == "planning.choose_action")
    assert "actions" in choose["reads"] and choose["llm"] is True and "answer_format" in choose["params"]


def test_run_warns_before_asking_a_distilled_profile_with_a_prompt_it_never_learned(monkeypatch) -> None:
    import coopgraph.cli.run as cli_run

    def stop(*args, **kwargs):
        raise ValueError("stopped before the episode")

    monkeypatch.setattr(cli_run, "_run_live", stop)
    mismatched = runner.invoke(app, ["run", "--team", "coela,coela", "--llm", "local-coop-brief"])
    assert mismatched.exit_code != 0 and "stopped before the episode" in mismatched.output
    assert mismatched.output.count("warning:") == 1 and "never saw" in mismatched.output
    matched = runner.invoke(app, ["run", "--team", "coela-brief,mhp", "--llm", "local-coop-brief"])
    assert "warning:" not in matched.output and "stopped before the episode" in matched.output
    other_world = runner.invoke(app, ["run", "--env", "cwah", "--team", "coela-lite,mhp", "--llm", "local-coop-tdw"])
    assert other_world.output.count("warning:") == 1 and "tdw-mat prompt" in " ".join(other_world.output.split())
    family = " ".join(runner.invoke(app, ["run", "--env", "tdw-mat", "--team", "coela-lite,rhp", "--llm",
                                          "local-coop"]).output.split())  # the family name: the world's planner
    assert "coela-lite plays with local-coop-tdw" in family and "warning:" not in family
    home = runner.invoke(app, ["run", "--env", "cwah", "--team", "coela-lite,mhp", "--llm", "local-coop"])
    assert "warning:" not in home.output and "stopped before the episode" in home.output


def test_demo_plays_the_distilled_planner_on_the_prompt_it_learned_and_warns_on_a_mismatch(monkeypatch) -> None:
    import coopgraph.cli.run as cli_run

    seen: list[tuple] = []

    def stop(env, options, episode, team, llm, *args, **kwargs):
        seen.append((env, episode, team, llm))
        raise ValueError("stopped before the episode")

    monkeypatch.setattr(cli_run, "_run_live", stop)
    default = runner.invoke(app, ["demo"])
    assert seen[-1] == ("cwah", "test/0", ["coela-brief", "coela-brief"], "local-coop-brief")
    assert "warning:" not in default.output and default.exit_code != 0
    banner = " ".join(default.output.split())  # says which wiring runs and that it is not the published method
    assert "coela-brief: a small-model variant of CoELA, not the published method" in banner
    assert "MHP expert's policy" in banner
    mixed = " ".join(runner.invoke(app, ["demo", "--team", "coela,mhp"]).output.split())
    assert "coela: CoELA as published" in mixed and "mhp: a scripted baseline" in mixed
    mismatched = runner.invoke(app, ["demo", "--team", "coela,coela"])
    assert seen[-1][2:] == (["coela", "coela"], "local-coop-brief") and "never saw" in mismatched.output


def test_run_trace_names_the_file_and_never_overwrites_one(tmp_path: Path) -> None:
    trace = tmp_path / "runs" / "pair.jsonl"
    result = runner.invoke(app, ["run", "--team", "mhp,mhp", "--max-steps", "5", "--trace", str(trace), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["trace_path"] == str(trace)
    assert trace.with_suffix(".checkpoints.sqlite").is_file()
    before = trace.read_bytes()
    again = runner.invoke(app, ["run", "--team", "mhp,mhp", "--max-steps", "5", "--trace", str(trace)])
    assert again.exit_code == 2 and "exists" in again.output
    assert trace.read_bytes() == before
    wrong = runner.invoke(app, ["run", "--team", "mhp,mhp", "--trace", str(tmp_path / "pair.txt")])
    assert wrong.exit_code == 2 and ".jsonl" in wrong.output


def test_distill_pools_several_decision_files_and_names_a_missing_one(tmp_path: Path) -> None:
    present = tmp_path / "expert.jsonl"
    present.write_text("")
    missing = tmp_path / "dagger-round-1.jsonl"
    result = runner.invoke(app, ["distill", "--data", str(present), "--data", str(missing), "-o",
                                 str(tmp_path / "a.gguf"), "--python", sys.executable])
    assert result.exit_code == 2, result.output
    assert f"no decisions file {missing}" in " ".join(result.output.split())
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_distill_refuses_a_missing_adapter_to_start_from_before_any_work(tmp_path: Path) -> None:
    data = tmp_path / "mix.jsonl"
    data.write_text("")
    result = runner.invoke(app, ["distill", "--data", str(data), "-o", str(tmp_path / "a.gguf"), "--init",
                                 str(tmp_path / "round-4.gguf"), "--python", sys.executable])
    assert result.exit_code == 2, result.output
    assert f"no adapter {tmp_path / 'round-4.gguf'} to start from" in " ".join(result.output.split())
    assert not (tmp_path / "a.pairs.jsonl").exists()
    assert result.exception is None or isinstance(result.exception, SystemExit)  # refused, no traceback


def test_distill_names_the_file_and_line_of_a_point_its_spec_cannot_render(tmp_path: Path) -> None:
    """Points recorded through llmco-lite-nohistory carry no action history; llmco-steady's prompt shows one, so
    rendering them through it is refused before any training, naming the point's file and line."""
    from coopgraph.evals.decisions import DecisionRenderer
    from coopgraph.evals.overcooked_decisions import layout_decisions

    points = layout_decisions("cramped_room", ["greedy", "greedy"],
                              renderer=DecisionRenderer("llmco-lite-nohistory"), horizon=20)[:3]
    assert points and all("action_texts" not in p["facts"] for p in points)
    data = tmp_path / "rollin.jsonl"
    data.write_text("\n" + "".join(json.dumps(p) + "\n" for p in points))  # a blank first line: the point is line 2
    result = runner.invoke(app, ["distill", "--data", str(data), "-o", str(tmp_path / "a.gguf"), "--spec",
                                 "llmco-steady", "--python", sys.executable])
    said = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert f"{data}:2: llmco-steady's prompt needs a fact" in said and "action_texts" in said
    assert "recorded through llmco-lite-nohistory" in said and "--spec llmco-steady" in said
    assert not (tmp_path / "a.pairs.jsonl").exists()
    assert result.exception is None or isinstance(result.exception, SystemExit)  # refused, no traceback


def test_distill_names_the_line_of_a_decisions_file_that_is_not_json(tmp_path: Path) -> None:
    data = tmp_path / "mix.jsonl"
    data.write_text('{"id": 1}\n{"id": 2,\n')
    result = runner.invoke(app, ["distill", "--data", str(data), "-o", str(tmp_path / "a.gguf"), "--python",
                                 sys.executable])
    assert result.exit_code == 2, result.output
    assert f"{data}:2: not a JSON decision point" in " ".join(result.output.split())
    assert result.exception is None or isinstance(result.exception, SystemExit)
    data.write_text('{"id": 1, "options": ["wait.", "move away."]}\n')  # JSON, but not a decision point
    result = runner.invoke(app, ["distill", "--data", str(data), "-o", str(tmp_path / "a.gguf"), "--python",
                                 sys.executable])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and f"{data}:1: not a decision point" in said and "'expert_index'" in said
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_distill_hands_its_seed_to_the_trainer(tmp_path: Path) -> None:
    """`--seed` orders the pairs (docs/methods/llmco.md, "Round 17"); the trainer gets it, and seed 0 by default."""
    from coopgraph.evals.decisions import DecisionRenderer
    from coopgraph.evals.overcooked_decisions import layout_decisions

    points = layout_decisions("cramped_room", ["greedy", "greedy"],
                              renderer=DecisionRenderer("llmco-lite-nohistory"), horizon=20)[:3]
    data = tmp_path / "mix.jsonl"
    data.write_text("".join(json.dumps(p) + "\n" for p in points))
    trainer = tmp_path / "trainer.sh"  # stands in for the torch interpreter: records its arguments, writes --out
    trainer.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/args.txt"\n'
                       'while [ $# -gt 0 ]; do [ "$1" = --out ] && touch "$2"; shift; done\n')
    trainer.chmod(0o755)

    def trained_with(*extra: str) -> list[str]:
        result = runner.invoke(app, ["distill", "--data", str(data), "-o", str(tmp_path / "a.gguf"), "--spec",
                                     "llmco-lite-nohistory", "--python", str(trainer), *extra])
        assert result.exit_code == 0, result.output
        args = (tmp_path / "args.txt").read_text().split("\n")
        return args[args.index("--seed") + 1:args.index("--seed") + 2]

    assert trained_with() == ["0"]
    assert trained_with("--seed", "2") == ["2"]
