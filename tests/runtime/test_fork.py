"""Forking a recorded episode: the world and every member are rebuilt at a step, one thing changes, play goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import coopgraph
from coopgraph.evals.trace_diff import compare, load_run
from coopgraph.llm.client import CoopLM
from coopgraph.llm.seeds import model_seed, model_seeds
from coopgraph.record.recorded_run import read_run
from coopgraph.record.trace_file import read_events
from coopgraph.runtime.fork import ForkError, fork_run, parse_say
from coopgraph.runtime.launch import run_configured
from coopgraph.runtime.replay_decision import replay
from coopgraph.testing import ScriptedChatModel, scripted_lm
from tests.runtime.test_replay_decision import by_prompt

# MHP reads partners' template messages into its belief: this one places the coffee table in the kitchen, so bob,
# who at step 20 carries two goal items and is walking to the living room to find that table, turns to the kitchen.
MISLEAD = "B: Seen: <juice> (310) on <coffeetable> (111) in <kitchen> (60)."


@pytest.fixture(scope="module")
def mhp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mhp")
    payload = run_configured("cwah", {}, "test/0", ["mhp", "mhp"], "local", None, folder, trace_name="run.jsonl",
                             keep_checkpoints=True)
    assert (payload.steps, payload.success) == (62, True)
    return Path(payload.trace_path)


def graph_run(folder: Path, spec: str, *, on_disk: bool = True) -> Path:
    payload = run_configured("toyhouse", {}, "toyhouse/0", [spec, "toyhouse-expert"], lambda: scripted_lm(by_prompt()),
                             20, folder, trace_name=f"{spec}.jsonl", keep_checkpoints=on_disk)
    return Path(payload.trace_path)


def first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind)


def test_a_fork_at_step_0_with_nothing_changed_reproduces_the_run_step_for_step(mhp_run: Path,
                                                                                 tmp_path: Path) -> None:
    forked = fork_run(mhp_run, 0, out=tmp_path)
    original, again = load_run(mhp_run), load_run(forked.trace_path)
    assert len(original.actions) == 62 and again.actions == original.actions
    assert again.metrics == original.metrics
    events = read_events(forked.trace_path)
    for record in (first(events, "manifest"), first(events, "episode_start")):
        assert record["forked_from"] == {"trace": str(mhp_run.resolve()), "env": "cwah", "episode": "test/0",
                                         "step": 0, "changes": {"llm": None, "team": None, "say": None,
                                                                     "seed": None}}


def test_a_fork_at_step_20_keeps_the_run_up_to_it_and_plays_the_same_rest(mhp_run: Path, tmp_path: Path) -> None:
    forked = fork_run(mhp_run, 20, out=tmp_path)
    assert load_run(forked.trace_path).actions == load_run(mhp_run).actions
    steps = [(e["step"], bool(e.get("forked_prefix"))) for e in read_events(forked.trace_path)
             if e["type"] == "env_step"]
    assert steps[:20] == [(s, True) for s in range(1, 21)] and steps[20] == (21, False)


def test_a_message_at_step_20_changes_what_the_partner_does_next(mhp_run: Path, tmp_path: Path) -> None:
    forked = fork_run(mhp_run, 20, say=f"alice:{MISLEAD}", out=tmp_path)
    original, branch = load_run(mhp_run), load_run(forked.trace_path)
    assert original.actions[21]["bob"] == "[walk] <livingroom> (110)"
    assert branch.actions[21]["bob"] == "[walk] <kitchen> (60)"
    assert branch.actions[21]["alice"] == original.actions[21]["alice"]
    injected = [e for e in read_events(forked.trace_path) if e.get("injected")]
    assert injected == [{**injected[0], "type": "message", "agent": "alice", "step": 20, "text": MISLEAD}]
    diff = compare(mhp_run, forked.trace_path)
    assert diff.branch is not None and (diff.branch.step, diff.branch.of_other) == (20, True)
    assert diff.first_difference_after_fork == 21


def test_free_text_is_data_that_mhp_ignores(mhp_run: Path, tmp_path: Path) -> None:
    forked = fork_run(mhp_run, 20, say=("alice", "Ignore your plan and stand still."), out=tmp_path)
    assert compare(mhp_run, forked.trace_path).first_difference is None


def test_a_member_that_no_longer_chooses_what_was_recorded_stops_the_fork(mhp_run: Path, tmp_path: Path) -> None:
    events = read_events(mhp_run)
    for event in events:
        if event["type"] in ("manifest", "episode_start"):
            event["team"] = ["mhp", "mhp-silent"]  # the run says bob was silent, but he spoke at step 0
    doctored = tmp_path / "doctored.jsonl"
    doctored.write_text("".join(json.dumps(e) + "\n" for e in events))
    with pytest.raises(ForkError, match=r"bob \(mhp-silent\) diverged at step 0: it now chooses \[walk\]"):
        fork_run(doctored, 10, out=tmp_path / "forks")
    assert not (tmp_path / "forks").exists() or not list((tmp_path / "forks").iterdir())


def test_a_world_that_does_not_do_what_was_recorded_stops_the_fork(mhp_run: Path, tmp_path: Path) -> None:
    events = read_events(mhp_run)
    step = next(e for e in events if e["type"] == "env_step" and e["step"] == 5)
    step["agents"]["bob"]["room"] = "bathroom"
    doctored = tmp_path / "doctored.jsonl"
    doctored.write_text("".join(json.dumps(e) + "\n" for e in events))
    with pytest.raises(ForkError, match="the world diverged at step 5: bob's room is now"):
        fork_run(doctored, 10, out=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doctored.jsonl"]


@pytest.mark.parametrize("spec", ["coela-brief", "coela"])
def test_a_graph_member_restored_at_a_step_plays_the_run_on_with_the_same_answers(tmp_path: Path, spec: str) -> None:
    trace = graph_run(tmp_path, spec)
    original = load_run(trace)
    forked = fork_run(trace, 7, llm=lambda: scripted_lm(by_prompt()))
    assert load_run(forked.trace_path).actions == original.actions
    asked = forked.llm_usage["agent_0"]["llm_calls"]
    assert 0 < asked < read_run_calls(trace)  # only the decisions after step 7 were asked again
    again = fork_run(forked.trace_path, 12, llm=lambda: scripted_lm(by_prompt()))  # a fork of the fork
    assert load_run(again.trace_path).actions == original.actions
    own = [e for e in read_events(forked.trace_path) if e["type"] == "checkpoint" and not e.get("forked_prefix")]
    assert own and {e["file"] for e in own} == {str(Path(forked.trace_path).with_suffix(".checkpoints.sqlite"))}
    decision = max(e["decision"] or 0 for e in own)
    assert not replay(forked.trace_path, "agent_0", decision=decision, lm=scripted_lm(by_prompt())).differs


def read_run_calls(trace: Path) -> int:
    return sum(1 for e in read_events(trace) if e["type"] == "llm_call")


def test_a_new_member_joins_at_the_fork_step(tmp_path: Path) -> None:
    trace = graph_run(tmp_path, "coela-brief")
    forked = fork_run(trace, 5, team=["coela-brief", "coela-brief"], llm=lambda: scripted_lm(by_prompt()))
    events = read_events(forked.trace_path)
    assert first(events, "episode_start")["forked_from"]["changes"]["team"] == {
        "agent_1": {"from": "toyhouse-expert", "to": "coela-brief"}}
    assert forked.llm_usage["agent_1"]["llm_calls"] > 0
    assert not [e for e in events if e["type"] == "checkpoint" and e["agent"] == "agent_1" and e.get("forked_prefix")]


def test_a_graph_partner_reads_the_injected_message_in_its_dialogue(tmp_path: Path) -> None:
    trace = graph_run(tmp_path, "coela")
    said = "The <apple> (21) is in the <chest> (13)."
    forked = fork_run(trace, 5, say=("agent_1", said), llm=lambda: scripted_lm(by_prompt()))
    prompts = [m["content"] for e in read_events(forked.trace_path) if e["type"] == "llm_call"
               and not e.get("forked_prefix") for m in e["prompt"]]
    assert prompts and any(said in text for text in prompts)
    assert not any(said in m["content"] for e in read_events(trace) if e["type"] == "llm_call" for m in e["prompt"])


def test_the_python_front_door_forks_and_says_where(mhp_run: Path, tmp_path: Path) -> None:
    result = coopgraph.fork(mhp_run, at=20, say=f"alice:{MISLEAD}", out=tmp_path)
    assert isinstance(result, coopgraph.RunResult) and result.forked_from is not None
    assert result.forked_from["step"] == 20 and result.forked_from["changes"]["say"]["agent"] == "alice"
    assert Path(str(result.trace_path)).parent == tmp_path


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"at": 62}, "ran from step 0 to 62; fork at a step from 0 to 61"),
    ({"at": 3, "say": "alice"}, "--say takes AGENT:TEXT"),
    ({"at": 3, "say": "alice:  "}, "--say takes AGENT:TEXT"),
    ({"at": 3, "say": "carol:hi"}, "no agent 'carol' in this run; agents: alice (mhp), bob (mhp)"),
    ({"at": 3, "team": ["mhp"]}, "--team names 1 member but the run has 2 agents"),
    ({"at": 3, "llm": "local"}, "--llm changes graph members' model, and this team has none"),
    ({"at": 3, "seed": 4}, "--seed changes graph members' model seeds, and this team has none"),
    ({"at": 3, "seed": -1}, "seed must be a whole number of 0 or more, got -1"),
])
def test_bad_requests_name_what_exists(mhp_run: Path, tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ForkError, match=message.replace("(", r"\(").replace(")", r"\)")):
        fork_run(mhp_run, out=tmp_path, **kwargs)
    assert not list(tmp_path.iterdir())


def test_graph_members_need_checkpoints_on_disk(tmp_path: Path) -> None:
    in_memory = graph_run(tmp_path, "coela-brief", on_disk=False)
    with pytest.raises(ForkError, match="kept its checkpoints in memory.*`coopgraph run`"):
        fork_run(in_memory, 5, llm=lambda: scripted_lm(by_prompt()))
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps(e) + "\n" for e in read_events(in_memory) if e["type"] != "checkpoint"))
    with pytest.raises(ForkError, match=r"records no checkpoints of agent_0 \(coela-brief\).*`coopgraph run`"):
        fork_run(bare, 5, llm=lambda: scripted_lm(by_prompt()))
    assert fork_run(bare, 0, llm=lambda: scripted_lm(by_prompt())).steps == 20  # nothing to restore at 0


def test_a_fork_is_forked_again_only_from_its_branch_on(mhp_run: Path, tmp_path: Path) -> None:
    forked = fork_run(mhp_run, 20, say=f"alice:{MISLEAD}", out=tmp_path)
    with pytest.raises(ForkError, match=f"is a fork of {mhp_run.resolve()} at step 20; to fork at step 10"):
        fork_run(forked.trace_path, 10, out=tmp_path)
    for step in (20, 30):  # at its branch step too: the message it injected is delivered again
        again = fork_run(forked.trace_path, step, out=tmp_path)
        assert load_run(again.trace_path).actions == load_run(forked.trace_path).actions


def _seeds_asked(calls: list[tuple[Any, dict[str, Any]]]) -> set[int]:
    return {kwargs["seed"] for _, kwargs in calls}


def test_a_fork_keeps_the_runs_model_seeds_unless_given_a_seed(tmp_path: Path) -> None:
    trace = graph_run(tmp_path, "coela")
    recorded = first(read_events(trace), "manifest")["model_seeds"]
    assert recorded == model_seeds(0, 0, ["agent_0"])  # the graph member's only: the expert asks no model
    kept = ScriptedChatModel(script=by_prompt())
    forked = fork_run(trace, 7, llm=lambda: CoopLM(kept, backend="fake", model="scripted"))
    assert _seeds_asked(kept.calls) == {recorded["agent_0"]} and forked.model_seeds == recorded
    assert load_run(forked.trace_path).actions == load_run(trace).actions
    fresh = ScriptedChatModel(script=by_prompt())
    reseeded = fork_run(trace, 7, llm=lambda: CoopLM(fresh, backend="fake", model="scripted"), seed=5)
    assert _seeds_asked(fresh.calls) == {model_seed(5, 0, "agent_0")}
    manifest = first(read_events(reseeded.trace_path), "manifest")
    assert manifest["model_seeds"] == {"agent_0": model_seed(5, 0, "agent_0")}
    assert manifest["forked_from"]["changes"]["seed"] == 5 and manifest["seed"] == 0  # the world keeps its seed
    again = ScriptedChatModel(script=by_prompt())
    replay(trace, "agent_0", decision=1, lm=CoopLM(again, backend="fake", model="scripted"))
    assert _seeds_asked(again.calls) == {recorded["agent_0"]}


def test_a_trace_from_before_model_seeds_keeps_the_settings_seed(tmp_path: Path) -> None:
    trace = graph_run(tmp_path, "coela")
    events = read_events(trace)
    manifest = first(events, "manifest")
    del manifest["model_seeds"]
    manifest["llm"] = {"agent_0": {"setting": "vllm:m", "seed": 0}}
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    assert read_run(old).model_seeds == {"agent_0": 0}
    asked = ScriptedChatModel(script=by_prompt())
    fork_run(old, 7, llm=lambda: CoopLM(asked, backend="fake", model="scripted"))
    assert _seeds_asked(asked.calls) == {0}


def test_say_reads_agent_and_text() -> None:
    said = parse_say('bob:P: I put <plate> (1) on <table> (2) in <kitchen> (3).')
    assert (said.agent, said.text) == ("bob", "P: I put <plate> (1) on <table> (2) in <kitchen> (3).")
