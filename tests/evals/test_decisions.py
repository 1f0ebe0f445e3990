"""Decision points from MHP runs: deterministic, split by episode, labelled from the options, prompt-faithful."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs.cwah.experts.oracle import plan_team
from coopgraph.envs.partners import make_partner
from coopgraph.evals.bench.decision_agreement import evaluate, kind_of, presented, sample, summarize
from coopgraph.evals.decisions import (
    SPLITS,
    RecordingMHP,
    generate,
    read_jsonl,
    split_of,
    true_state,
    write_jsonl,
)
from coopgraph.graphs.compiler import node_context
from coopgraph.graphs.loader import load_spec
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.registry import NODES
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.testing import scripted_lm

ROLES = {"system": "system", "human": "user", "ai": "assistant"}


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return list(generate("cwah", "train", ["mhp", "mhp"], limit_episodes=3, oracle_restarts=30))


def test_two_generations_with_one_seed_are_byte_identical(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_jsonl(generate("cwah", "test", limit_episodes=2, oracle_restarts=30), first)
    write_jsonl(generate("cwah", "test", limit_episodes=2, oracle_restarts=30), second)
    assert first.stat().st_size > 0
    assert first.read_bytes() == second.read_bytes()


def test_splits_are_by_episode(records: list[dict[str, Any]]) -> None:
    by_episode: dict[str, set[str]] = {}
    for record in records:
        by_episode.setdefault(record["episode"], set()).add(record["split"])
    assert len(by_episode) == 3
    assert all(len(splits) == 1 for splits in by_episode.values())
    assert all(splits == {split_of(ep, 0)} for ep, splits in by_episode.items())
    names = {split_of(f"train/{i}", 0) for i in range(50)}
    assert names == {name for name, _ in SPLITS}  # every split gets episodes of a full set


def test_labels_are_listed_options_and_never_a_message(records: list[dict[str, Any]]) -> None:
    assert len(records) > 20
    assert len({r["id"] for r in records}) == len(records)
    for record in records:
        options = record["options"]
        assert options[record["expert_index"]] == record["expert_choice"]
        assert not record["expert_choice"].startswith("[send_message]")
        assert not any(o.startswith("[send_message]") for o in options)  # no draft: CoELA's list without it
        if record["oracle_index"] is None:
            assert record["oracle_choice"] is None
        else:
            assert options[record["oracle_index"]] == record["oracle_choice"]
            assert record["oracle_match"] in ("exact", "check", "explore")
    assert any(r["oracle_match"] == "exact" for r in records)


def test_facts_carry_the_agents_own_history(records: list[dict[str, Any]]) -> None:
    """A later decision remembers the agent's earlier plan and what partners said, as CoELA's memory would."""
    alice = [r for r in records if r["episode"] == "train/0" and r["agent"] == "alice"]
    assert alice[0]["facts"]["previous_actions"] == ""
    assert alice[0]["expert_choice"] in alice[1]["facts"]["previous_actions"]
    assert any('bob: "' in r["facts"]["dialogue"] for r in alice)
    assert all(r["facts"]["agent_name"] == "Alice" and r["facts"]["partner_names"] == ["Bob"] for r in alice)


def test_recording_does_not_change_how_mhp_plays() -> None:
    plain = run_episode(envs.make("cwah", episode="test/1", num_agents=2), [make_partner("mhp"), make_partner("mhp")])
    members = [RecordingMHP(), RecordingMHP()]
    recorded = run_episode(envs.make("cwah", episode="test/1", num_agents=2), members)
    assert (recorded.steps, recorded.messages) == (plain.steps, plain.messages)
    assert all(m.snapshots for m in members)


def test_perturbed_experts_go_off_course_but_every_label_is_still_the_planners_choice() -> None:
    records = list(generate("cwah", "test", limit_episodes=2, oracle_restarts=0, perturb=0.4))
    again = list(generate("cwah", "test", limit_episodes=2, oracle_restarts=0, perturb=0.4))
    plain = list(generate("cwah", "test", limit_episodes=2, oracle_restarts=0))
    assert records == again  # seeded: the detours are the same every time
    detours = [r for r in records if r["followed"] != r["expert_choice"]]
    assert 0.15 * len(records) < len(detours) < 0.5 * len(records)
    assert all(r["followed"] in r["options"] for r in detours)
    assert all(r["followed"] == r["expert_choice"] for r in plain)
    assert [r["id"] for r in records] != [r["id"] for r in plain]  # the detours change what happens next
    # a detour is remembered as the agent's own previous action, so later prompts show the off-course history
    later = {(r["episode"], r["agent"]): r for r in records}
    assert any(d["followed"] in later[(d["episode"], d["agent"])]["facts"]["previous_actions"] for d in detours)


def test_a_perturbed_agent_labels_with_the_planner_on_the_belief_it_had() -> None:
    agent = RecordingMHP(perturb=1.0)
    run_episode(envs.make("cwah", episode="test/3", num_agents=2), [agent, RecordingMHP()], max_steps=120)
    assert len(agent.snapshots) >= 5
    replay = RecordingMHP()
    for snap in agent.snapshots:
        options = replay.affordances.available(snap.belief)
        assert snap.choice.text == replay.planner.choose(snap.belief, options).text
        assert snap.followed.text in [o.text for o in options]
    assert sum(s.followed.text != s.choice.text for s in agent.snapshots) > len(agent.snapshots) / 2


def test_oracle_state_at_the_start_plans_like_the_oracle() -> None:
    env = envs.make("cwah", episode="test/2", num_agents=2)
    env.reset(seed=0)
    agents = tuple(env.possible_agents)
    now = plan_team(true_state(env, "alice").episode, agents, env.config, restarts=30)
    start = plan_team(env.episode, agents, env.config, restarts=30)
    assert now.estimated_steps == start.estimated_steps
    texts = {agent: [step.text for step in plan] for agent, plan in now.steps.items()}
    assert texts == {agent: [step.text for step in plan] for agent, plan in start.steps.items()}


def test_rendered_prompt_is_what_choose_action_sends(records: list[dict[str, Any]]) -> None:
    record = next(r for r in records if len(r["options"]) >= 3 and r["facts"]["dialogue"])
    lm = scripted_lm(["Reasoning: fine\nAnswer: B"])
    info = NODES.get("planning.choose_action")
    ctx = node_context(load_spec(records[0]["spec"]), "choose_action", AgentResources(env=record["prompt_env"], lm=lm))
    update = info.fn({"facts": record["facts"], "actions": record["options"]}, ctx)
    assert update["choice"] == record["options"][1]
    sent = [{"role": ROLES[m.type], "content": m.content} for m in lm.chat_model.calls[0][0]]
    assert sent == record["messages"]


def test_bench_measures_position_bias_against_its_baseline(records: list[dict[str, Any]]) -> None:
    chosen = sample(records, 15, seed=3)
    assert chosen == sample(records, 15, seed=3) and all(len(d["options"]) >= 2 for d in chosen)
    rows = evaluate(chosen, scripted_lm(["Answer: A"]), reasoning_chars=0)
    summary = summarize(rows)
    assert summary["answer_is_first"] == 1.0 and summary["invalid"] == 0.0
    assert summary["agree_mhp"] == summary["first_is_mhp"]
    for decision in chosen:  # shuffling moves the labels with their options
        options, expert, oracle = presented(decision, True, seed=0)
        assert options[expert] == decision["expert_choice"]
        assert oracle is None or options[oracle] == decision["oracle_choice"]
    kinds = [kind_of(d["options"][0]) == kind_of(d["expert_choice"]) for d in chosen]
    assert summary["agree_kind_mhp"] == round(sum(kinds) / len(kinds), 4) >= summary["agree_mhp"]
    invalid = summarize(evaluate(chosen[:3], scripted_lm(["no idea"])))
    assert invalid["invalid"] == 1.0 and invalid["agree_mhp"] == 0.0 and invalid["llm_errors"] == 0
    assert invalid["agree_kind_mhp"] == 0.0  # an invalid answer has no kind


def test_bench_counts_answers_the_grammar_was_not_needed_for(records: list[dict[str, Any]]) -> None:
    import re

    from coopgraph.llm.client import CoopLM
    from coopgraph.testing import ScriptedChatModel

    def first_option(messages: list[Any], kwargs: dict[str, Any]) -> str:
        first = re.search(r"^A\. (.*)$", messages[-1].content, re.MULTILINE).group(1)
        return "Answer: " + (first if "grammar" in kwargs["extra_body"] else first[:-1])  # cut short: off the list

    chosen = sample(records, 6, seed=3)
    lm = CoopLM(ScriptedChatModel(script=first_option), backend="llamacpp", lazy_grammar=True)
    needed = summarize(evaluate(chosen, lm, spec="coela-lite", reasoning_chars=0, answer_format="text"))
    assert needed["grammar_skipped"] == 0.0 and needed["answer_is_first"] == 1.0 and needed["llm_calls"] == 6
    lm = CoopLM(ScriptedChatModel(script=lambda m, k: first_option(m, {"extra_body": {"grammar": 1}})),
                backend="llamacpp", lazy_grammar=True)
    # coela-lite: asked at the setting's temperature 0 (coela's 0.7 turns the lazy grammar off)
    assert summarize(evaluate(chosen, lm, spec="coela-lite", reasoning_chars=0,
                              answer_format="text"))["grammar_skipped"] == 1.0


def test_kind_of_an_action_is_its_bracketed_verb() -> None:
    assert kind_of("[gograb] <apple> (3)") == "[gograb]" and kind_of("[goexplore] <kitchen> (10)") == "[goexplore]"
    assert kind_of("wait") is None and kind_of(None) is None


def test_bench_counts_a_dead_server_as_errors_and_stops(records: list[dict[str, Any]]) -> None:
    chosen = sample(records, 10, seed=1)
    down = scripted_lm([ConnectionError("connection refused")])
    rows = evaluate(chosen[:2], scripted_lm(["Answer: A"])) + evaluate(chosen, down, give_up_after=4)
    assert len(rows) == 2 + 4 and [r["error"] for r in rows] == [False] * 2 + [True] * 4
    summary = summarize(rows)
    assert summary["decisions"] == 2 and summary["llm_errors"] == 4 and summary["invalid"] == 0.0


def test_cli_writes_the_file_and_json_summarises_it(tmp_path: Path) -> None:
    out = tmp_path / "decisions.jsonl"
    runner = CliRunner()
    args = ["data", "decisions", "--env", "cwah", "--set", "test", "--team", "mhp,mhp", "--limit-episodes", "1",
            "--oracle-restarts", "30", "-o", str(out)]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    lines = read_jsonl(out)
    assert summary["decisions"] == len(lines) > 0 and summary["episodes"] == 1
    assert summary["path"] == str(out) and sum(summary["splits"].values()) == len(lines)
    plain = runner.invoke(app, args)
    assert plain.exit_code == 0 and "wrote" in plain.output
    bad = runner.invoke(app, ["data", "decisions", "--team", "coela,mhp", "-o", str(out), "--json"])
    assert bad.exit_code == 2 and "cannot be recorded" in bad.output


def test_prerank_orders_listed_options_and_drops_none_it_should_keep(records: list[dict[str, Any]]) -> None:
    for record in records:
        order = record["prerank"]
        assert len(set(order)) == len(order) and all(0 <= i < len(record["options"]) for i in order)
        assert len(record["prerank_notes"]) == len(order)
        puts = [i for i, text in enumerate(record["options"]) if text.startswith("[goput]")]
        explores = [order.index(i) for i, text in enumerate(record["options"]) if text.startswith("[goexplore]")
                    and i in order]
        assert all(i in order for i in puts)  # putting a held goal object away is never dropped
        assert all(order.index(i) < min(explores, default=len(order)) for i in puts)  # and beats walking off


def test_bench_prerank_shows_the_k_best_and_a_cut_label_never_agrees(records: list[dict[str, Any]]) -> None:
    chosen = [r for r in records if len(r["prerank"]) >= 3 and r["expert_index"] not in r["prerank"][:2]][:4]
    chosen += [r for r in records if len(r["prerank"]) >= 3 and r["expert_index"] == r["prerank"][0]][:4]
    assert len(chosen) == 8
    for decision in chosen:
        options, expert, _ = presented(decision, False, 0, prerank=2)
        assert options == [decision["options"][i] for i in decision["prerank"][:2]]
        assert expert == (0 if decision["expert_index"] == decision["prerank"][0] else None)
    summary = summarize(evaluate(chosen, scripted_lm(["Answer: A"]), reasoning_chars=0, prerank=2))
    assert summary["expert_shown"] == 0.5 and summary["agree_mhp"] == 0.5 and summary["mean_options"] == 2
    assert summary["random_mhp"] < 0.5  # random choice is over everything the environment listed
    unasked = summarize(evaluate(chosen, scripted_lm([RuntimeError("must not be called")]), prerank=1))
    assert unasked["llm_calls"] == 0 and unasked["agree_mhp"] == 0.5 and unasked["median_latency_s"] is None
