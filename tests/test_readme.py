"""Every command and code block in README.md runs, as written, in a fresh folder.

Each block is claimed by exactly one test (by a phrase it contains), so a block added to the README without a
test fails `test_every_block_is_claimed`. Blocks that start an embedded model are `slow` (CI runs them too).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VENV = Path(sys.executable).parent.parent


@dataclass(frozen=True)
class Block:
    lang: str
    code: str
    line: int


def readme_blocks() -> list[Block]:
    """The fenced blocks of README.md in order, with the line their code starts on."""
    blocks: list[Block] = []
    lines = README.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append(Block(fence.group(1), "\n".join(lines[i + 1:end]) + "\n", i + 2))
            i = end
        i += 1
    return blocks


#: test name -> a phrase only its block contains
CLAIMS = {
    "two_commands": "make demo   #",
    "mermaid": "flowchart TD",
    "quickstart": "# Two scripted MHP experts",
    "spec_file": "cat > my-coela.yaml",
    "validate_draw": "graph validate my-coela.yaml",
    "scripted_run": "scripted_lm([\"A\"])",
    "real_run": "--team my-coela.yaml,mhp --llm local",
    "replay": "coopgraph replay runs/pair.jsonl",
    "node": "@node(\"mine.shout\"",
    "server": "OPENAI_BASE_URL=",
    "evaluate": "coopgraph eval cwah-baselines",
    "layout": "graphs/    YAML specs",
    "kitchen_scripted": "scripted_lm(kitchen_policy)",
    "kitchen_real": "--team llmco,greedy --llm local-coop --max-steps",
    "play_web": "coopgraph play --team human,mhp          #",
    "play_terminal": "yes 1 | .venv/bin/coopgraph play",
}


def block(name: str) -> Block:
    matches = [b for b in readme_blocks() if CLAIMS[name] in b.code]
    assert len(matches) == 1, f"README block {name!r} ({CLAIMS[name]!r}) found {len(matches)} times"
    return matches[0]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A fresh folder where `.venv/bin/...` is this project's environment, as in a clone."""
    (tmp_path / ".venv").symlink_to(VENV, target_is_directory=True)
    return tmp_path


def run_block(b: Block, cwd: Path, *, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    """Run a bash or python block as a user would paste it; fail with its output if it fails."""
    if b.lang == "python":
        argv = [str(cwd / ".venv" / "bin" / "python"), "-c", b.code]
    else:
        assert b.lang == "bash", f"README line {b.line}: no runner for a {b.lang!r} block"
        argv = ["bash", "-euo", "pipefail", "-c", b.code]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, f"README block at line {b.line} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def test_every_block_is_claimed() -> None:
    claimed = [name for b in readme_blocks() for name, phrase in CLAIMS.items() if phrase in b.code]
    unclaimed = [b.line for b in readme_blocks() if not any(p in b.code for p in CLAIMS.values())]
    assert unclaimed == [], f"README blocks at lines {unclaimed} have no test in tests/test_readme.py"
    assert sorted(claimed) == sorted(CLAIMS), "each README block is claimed by exactly one test"


def test_two_commands_are_the_makefile_targets_ci_runs() -> None:
    commands = [line.split("#")[0].strip() for line in block("two_commands").code.splitlines()]
    assert commands == ["make demo", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo: setup\n\t\$\(BIN\)/coopgraph demo$", makefile, re.M)
    assert re.search(r"^test: setup\n(\t.*\n)*\t\$\(BIN\)/pytest", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.slow
def test_make_demo_solves_the_house() -> None:
    done = subprocess.run(["make", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"success in \d+ steps", done.stdout + done.stderr), done.stderr[-2000:]


def test_mermaid_picture_is_what_graph_draw_prints(workspace: Path) -> None:
    drawn = subprocess.run([str(VENV / "bin" / "coopgraph"), "graph", "draw", "coela"], capture_output=True,
                           text=True, check=True).stdout
    assert block("mermaid").code == drawn


def test_layout_names_the_folders_that_exist() -> None:
    folders = [line.split()[0].rstrip("/") for line in block("layout").code.splitlines() if line.strip()]
    assert folders == ["graphs", "nodes", "prompts", "memory", "envs", "evals", "coopgraph"]
    assert all((ROOT / f).is_dir() for f in folders)


def test_own_wiring_validates_draws_and_runs_scripted(workspace: Path) -> None:
    run_block(block("spec_file"), workspace)
    out = run_block(block("validate_draw"), workspace)
    assert "ok my-coela.yaml" in out
    assert "flowchart TD" in out and "draft_message" in out
    out = run_block(block("scripted_run"), workspace)
    steps, trace = out.split()[-2:]
    assert int(steps) == 20
    events = [json.loads(line) for line in (workspace / trace).read_text().splitlines()]
    manifest = next(e for e in events if e["type"] == "manifest")
    assert manifest["specs"]["alice"]["name"] == "my-coela"
    assert any(e["type"] == "llm_call" for e in events)


def test_write_a_node_registers_a_working_node(workspace: Path) -> None:
    check = block("node").code + (
        "\nfrom types import SimpleNamespace\n"
        "from coopgraph.nodes.registry import NODES\n"
        "entry = NODES.get('mine.shout')\n"
        "print(entry.fn({'description': 'hi '}, SimpleNamespace(params=ShoutParams(times=2)))['shouted'])\n"
        "print(entry.keys[0].describe())\n")
    out = run_block(Block("python", check, block("node").line), workspace)
    assert [line.strip() for line in out.strip().splitlines()] == ["HI HI", "per-step key 'shouted': str"]


@pytest.mark.slow
def test_quickstart(workspace: Path) -> None:
    out = run_block(block("quickstart"), workspace).splitlines()
    assert out[0].startswith("True 62 runs/cwah-test_0-mhp+mhp-")
    success, steps, calls = out[1].split()
    assert success == "True" and 50 < int(steps) < 250 and float(calls) > 0
    assert out[2] == "capo " + out[2].split()[1] and int(out[2].split()[1]) > 3


@pytest.mark.slow
def test_own_wiring_runs_for_real_and_opens_in_the_viewer(workspace: Path) -> None:
    run_block(block("spec_file"), workspace)
    run_block(block("real_run"), workspace)
    events = [json.loads(line) for line in (workspace / "runs/mine.jsonl").read_text().splitlines()]
    calls = [e for e in events if e["type"] == "llm_call"]
    manifest = next(e for e in events if e["type"] == "manifest")
    assert calls and manifest["llm"]["alice"]["setting"] == "local"
    assert (workspace / "runs/mine.html").stat().st_size > 10_000


@pytest.mark.slow
def test_replay_and_fork_block(workspace: Path) -> None:
    out = run_block(block("replay"), workspace)
    verdicts = re.findall(r"alice at step \d+: (same as the run|differs from the run)", out)
    assert len(verdicts) == 2 and verdicts[0] == "same as the run"
    events = [json.loads(line) for line in (workspace / "runs/with-mhp.jsonl").read_text().splitlines()]
    start = next(e for e in events if e["type"] == "episode_start")
    assert start["forked_from"]["step"] == 10 and start["forked_from"]["changes"]["team"]
    page = (workspace / "runs/diff.html").read_text()
    assert "with-mhp.jsonl" in page and "fork" in page


@pytest.mark.slow
def test_model_server_block_against_the_embedded_server(workspace: Path) -> None:
    from coopgraph.llm.server import local_url
    from coopgraph.llm.settings import parse_setting

    url = local_url(parse_setting("local-coop-brief"))
    code = block("server").code.replace("http://localhost:8000/v1", url)
    assert code != block("server").code, "the README's server address changed; update this test"
    out = run_block(Block("bash", code + "ls runs\n", block("server").line), workspace)
    assert re.search(r"(success|not finished) in \d+ steps", out)


@pytest.mark.slow
def test_evaluate_block(workspace: Path) -> None:
    out = run_block(block("evaluate"), workspace)
    assert "MHP + MHP" in out
    program = json.loads((workspace / "runs/choose.json").read_text())
    assert program, "optimize wrote an empty program"
    assert (workspace / "runs/coela-lite-tuned.yaml").is_file()


def test_llmco_plays_a_kitchen_with_the_scripted_policy(workspace: Path) -> None:
    *_, numbers, served = run_block(block("kitchen_scripted"), workspace).strip().splitlines()
    score, calls = (float(n) for n in numbers.split())
    assert score >= 0 and calls > 0  # it ran the whole graph and asked the stand-in
    by_cook = ast.literal_eval(served)  # who served: the soups add up to the score
    assert set(by_cook) == {"alice", "bob"} and 20 * sum(by_cook.values()) == score


@pytest.mark.slow
def test_the_kitchen_planner_plays_with_the_embedded_model(workspace: Path) -> None:
    out = run_block(block("kitchen_real"), workspace)
    result = json.loads(out[out.index("{"):])
    assert result["steps"] == 80 and result["team"] == ["llmco", "greedy"] and "score" in result["metrics"]
    assert result["invalid_answers"] == 0 and result["llm_usage"]["alice"]["llm_calls"] > 0
    manifest = json.loads((workspace / result["trace_path"]).read_text().splitlines()[0])
    assert manifest["llm"]["alice"]["setting"] == "local-coop-llmco"  # the family name gave llmco its planner


def test_play_serves_the_page_and_a_script_plays_on_the_terminal(workspace: Path) -> None:
    import signal
    import time
    import urllib.request

    web = subprocess.Popen(["bash", "-c", block("play_web").code], cwd=workspace, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env={**os.environ, "BROWSER": "true"},
                           start_new_session=True)
    try:
        line = web.stdout.readline() if web.stdout else ""
        address = re.search(r"http://\S+", line)
        assert address, line
        state: dict = {"turn": None}
        for _ in range(300):  # the address is printed before the first turn is asked
            with urllib.request.urlopen(address.group(0) + "state", timeout=30) as response:
                state = json.loads(response.read())
            if state["turn"] is not None:
                break
            time.sleep(0.1)
        assert state["agent"] == "alice" and state["turn"]["options"][0] == "[goexplore] <kitchen> (60)"
    finally:
        os.killpg(web.pid, signal.SIGTERM)
        web.wait(30)
    assert web.returncode == 1  # left before the end: the run is kept, marked abandoned
    # `yes` ends by SIGPIPE once play has finished, so this block runs without pipefail, as a user's shell does
    done = subprocess.run(["bash", "-c", block("play_terminal").code], cwd=workspace, capture_output=True,
                          text=True, timeout=600, check=True)
    result = json.loads(done.stdout)
    assert result["steps"] == 20 and result["team"] == ["human", "mhp"]
