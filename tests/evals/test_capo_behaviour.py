"""CaPo's behaviour on C-WAH with scripted chat models: the discussion, its cost in steps, mixed teams, ablations."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.baselines import make_baseline
from coopgraph.evals.graph_agent import GraphAgent
from coopgraph.evals.runner import EpisodeResult, run_episode
from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
from coopgraph.testing import check_spec_file, scripted_lm
from coopgraph.tracing import Tracer

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)
CAPO_SPECS = sorted([GRAPHS_DIR / "capo.yaml", *(GRAPHS_DIR / "ablations").glob("capo-*.yaml")])


def capo_model(agree: bool | Callable[[str], bool] = True) -> Callable[[list[Any], dict[str, Any]], str]:
    """A scripted model: a meta-plan (each design a little different), a verdict (`agree`), and an action
    chooser that gets work done."""
    designs = []

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = messages[-1].content
        if text.rstrip().endswith("Meta-plan:"):
            designs.append(text)
            return ("Alice: grab <pudding> (304), <juice> (310), put them on <coffeetable> (111)\n"
                    f"Bob: explore <kitchen> (60), grab <cupcake> (300), take {len(designs)} looks\n"
                    "Carol: search <bathroom> (160)")
        if "Should we follow it?" in text:
            ok = agree(text) if callable(agree) else agree
            return f"Reasoning: {'fine' if ok else 'Bob should check the fridge first'}\nAnswer: {'A' if ok else 'B'}"
        options = OPTION.findall(text)
        for wanted in ("[goput]", "[gograb]", "[goexplore]"):
            for letter, option in options:
                if option.startswith(wanted):
                    return f"Reasoning: {wanted} now\nAnswer: {letter}"
        return "Answer: A"

    return reply


def play(team: list[str], steps: int, model: Any = None, tracer: Any = None) -> tuple[EpisodeResult, list[Any]]:
    members = [make_baseline(n) if n.startswith("mhp") else
               GraphAgent(n, lm=scripted_lm(model or capo_model()), vector_memory=False) for n in team]
    env = envs.make("cwah", episode="test/0", num_agents=len(team))
    return run_episode(env, members, max_steps=steps, tracer=tracer), members


def capo_messages(result: EpisodeResult, kind: str, version: int | None = None, sender: str | None = None) -> list:
    found = []
    for message in result.messages:
        match = re.match(r"\[capo (\w+) (\d+)", message.text)
        if not match or match[1] != kind or (sender is not None and message.sender != sender):
            continue
        if version is None or int(match[2]) == version:
            found.append(message)
    return found


def test_the_discussion_ends_at_consensus() -> None:
    result, (alice, bob) = play(["capo", "capo"], 8)
    assert [m.sender for m in capo_messages(result, "plan", 1)] == ["alice"]
    assert [m.text.split("]")[0] for m in capo_messages(result, "feedback", 1)] == ["[capo feedback 1.1 agree"]
    assert alice.memory.channel("capo").discussion.consensus and bob.memory.channel("capo").discussion.consensus
    assert bob.memory.channel("capo").discussion.meta_plan == alice.memory.channel("capo").discussion.meta_plan


@pytest.mark.parametrize(("spec", "budget"), [("capo", 3), ("capo-rounds1", 1), ("capo-rounds5", 5)])
def test_an_evaluator_never_satisfied_ends_the_discussion_at_the_round_budget(spec: str, budget: int) -> None:
    result, (alice, _) = play([spec, spec], 2 * budget + 6, capo_model(agree=False))
    plans = capo_messages(result, "plan", 1)
    assert [m.text.split("]")[0] for m in plans] == [f"[capo plan 1.{r}" for r in range(1, budget + 1)]
    assert len(capo_messages(result, "feedback", 1)) == budget
    assert any(f"budget spent at 1.{budget}" in entry for entry in alice.memory.channel("capo").discussion.log)


def test_discussion_messages_are_actions_sent_through_the_environment_and_cost_steps() -> None:
    tracer = Tracer(None)
    result, _ = play(["capo", "capo"], 30, capo_model(agree=lambda prompt: "round 2" in prompt), tracer)
    steps = {e["step"]: e["agents"] for e in tracer.events if e["type"] == "env_step"}
    talk = [m for m in result.messages if m.text.startswith("[capo ")]
    assert len(talk) >= 4 and len(talk) == len(result.messages)  # CaPo talks only through its protocol
    for message in talk:
        record = steps[message.step][message.sender]
        assert record["action"].startswith("[send_message] [capo ")  # the message was that step's action
        if message.step > 1:
            assert record["position"] == steps[message.step - 1][message.sender]["position"]  # no walking meanwhile
    assert result.metrics["communication_steps"] == len(talk)
    plans = [e for e in tracer.events if e["type"] == "plan" and e["plan"].startswith("[send_message]")]
    assert len(plans) == len(talk)  # each went through the shared execution nodes
    assert {e["what"] for e in tracer.events if e["type"] == "discussion"} >= {"init plan 1.1", "consensus on 1.2"}


def test_capo_with_a_partner_that_does_not_discuss_plans_alone_and_keeps_acting() -> None:
    result, (alice, _) = play(["capo", "mhp"], 60)
    discussion = alice.memory.channel("capo").discussion
    assert [m.text.split("]")[0] for m in capo_messages(result, sender="alice", kind="plan")] == ["[capo plan 1.1"]
    assert discussion.solo and "bob" in discussion.silent and discussion.version > 1  # adapted alone, silently
    assert len(capo_messages(result, "plan")) == 1 and result.per_agent["alice"]["communication_steps"] == 1
    assert alice.memory.episodic.actions and any("[goput]" in a.text for a in alice.memory.episodic.actions)
    assert result.metrics["subgoals_done"] >= 1


def test_capo_after_a_planner_baseline_takes_the_designer_role_alone() -> None:
    result, (_, bob) = play(["mhp", "capo"], 30)
    discussion = bob.memory.channel("capo").discussion
    assert discussion.role == "designer" and discussion.solo and discussion.meta_plan
    assert not capo_messages(result, "plan") and result.per_agent["bob"]["communication_steps"] == 0


def test_three_capo_agents_discuss_with_one_designer_and_two_evaluators() -> None:
    result, team = play(["capo", "capo", "capo"], 10, capo_model(agree=lambda prompt: "round 2" in prompt))
    assert [m.text.split("]")[0] for m in capo_messages(result, "plan", 1)] == ["[capo plan 1.1", "[capo plan 1.2"]
    assert sorted(m.sender for m in capo_messages(result, "feedback", 1)) == ["bob", "bob", "carol", "carol"]
    assert all(member.memory.channel("capo").discussion.consensus for member in team)
    assert [d.memory.channel("capo").discussion.role for d in team] == ["designer", "evaluator", "evaluator"]


def test_the_chooser_sees_the_meta_plan_and_its_part_and_a_plan_adds_no_action() -> None:
    model = capo_model()

    def sneaky(messages: list[Any], kwargs: dict[str, Any]) -> str:
        if messages[-1].content.rstrip().endswith("Meta-plan:"):
            return "Alice: [gograb] <safe> (9999)\nBob: [gograb] <safe> (9999), then explore <kitchen> (60)"
        return model(messages, kwargs)

    lm = scripted_lm(sneaky)
    env = envs.make("cwah", episode="test/0", num_agents=2)
    run_episode(env, [GraphAgent("capo", lm=lm, vector_memory=False),
                      GraphAgent("capo", lm=scripted_lm(model), vector_memory=False)], max_steps=4)
    choices = [m[-1].content for m, _ in lm.chat_model.calls if "Available actions:" in m[-1].content]
    assert choices and "Meta-plan (" in choices[-1] and "My part: [gograb] <safe> (9999)" in choices[-1]
    assert all("(9999)" not in prompt.split("Available actions:")[1] for prompt in choices)
    last = choices[-1]  # the discussion is shown once, as the plan: not in the dialogue, cut short in the history
    assert 'bob: "[capo' not in last and '[send_message] <"[capo plan 1.1] ...">' in last
    assert last.count("explore <kitchen> (60)") == 1


def test_every_capo_spec_validates_compiles_and_says_what_it_ablates() -> None:
    assert len(CAPO_SPECS) == 9
    for path in CAPO_SPECS:
        check_spec_file(path)
    nodes = {p.stem: load_spec(p).spec.nodes for p in CAPO_SPECS}
    for rounds in range(1, 6):
        assert nodes[f"capo-rounds{rounds}"]["discuss"].params["rounds"] == rounds
    assert nodes["capo"]["discuss"].params["rounds"] == 3
    assert not {n.use.split(".")[0] for n in nodes["capo-nometa"].values()} & {"metaplan", "progress"}
    assert "track_progress" not in nodes["capo-noadapt"] and nodes["capo-noadapt"]["discuss"].params["adapt"] is False
    assert nodes["capo-noeval"]["discuss"].params == {**nodes["capo-noadapt"]["discuss"].params, "evaluate": False}
    assert nodes["capo"]["choose_action"].use == "planning.choose_action"  # plan parsing reuses the chooser


def test_the_ablations_talk_as_their_names_say() -> None:
    noeval, _ = play(["capo-noeval", "capo-noeval"], 40)
    assert [m.text.split("]")[0] for m in noeval.messages] == ["[capo plan 1.1"]
    nometa, team = play(["capo-nometa", "capo-nometa"], 20)
    assert not nometa.messages and all(m.memory.channel("capo").discussion is None for m in team)
    noadapt, team = play(["capo-noadapt", "capo-noadapt"], 60)
    full, full_team = play(["capo", "capo"], 60)
    assert team[0].memory.channel("capo").discussion.version == 1 and not capo_messages(noadapt, "progress")
    assert full_team[0].memory.channel("capo").discussion.version > 1


def test_shipped_names_resolve_for_teams() -> None:
    from coopgraph.evals.teams import member_kind

    for path in CAPO_SPECS:
        assert member_kind(Path(path).stem) == "graph"
