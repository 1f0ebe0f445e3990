"""CaPo's behaviour on C-WAH with scripted chat models: the discussion, its cost in steps, mixed teams, ablations."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.runtime.result import RunResult
from coopgraph.testing import check_spec_file, scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)
CAPO_SPECS = sorted([GRAPHS_DIR / "capo.yaml", *(GRAPHS_DIR / "ablations").glob("capo-*.yaml"),
                     *(GRAPHS_DIR / "variants").glob("capo-*.yaml")])


def capo_model(agree: bool | Callable[[str], bool] = True, fits: bool = False,
               message: str = "I will take the pudding.") -> Callable[[list[Any], dict[str, Any]], str]:
    """A scripted model: a meta-plan (each design a little different), a verdict (`agree`), the plan-fit check
    (`fits`; by default the plan never fits, so every progress event brings a new plan), a CoELA draft
    (`message`), and an action chooser that gets work done."""
    designs = []

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = messages[-1].content
        if "Does the meta-plan still fit?" in text:
            return f"Reasoning: {'it does' if fits else 'it does not'}\nAnswer: {'A' if fits else 'B'}"
        if text.rstrip().endswith("My message:"):
            return message
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


def play(team: list[str], steps: int, model: Any = None, tracer: Any = None, seed: int = 0,
         env_name: str = "cwah") -> tuple[RunResult, list[Any]]:
    members = [make_partner(n) if n.startswith("mhp") else
               GraphAgent(n, lm=scripted_lm(model or capo_model()), vector_memory=False) for n in team]
    env = envs.make(env_name, episode="test/0", num_agents=len(team))
    return run_episode(env, members, max_steps=steps, tracer=tracer, seed=seed), members


def capo_messages(result: RunResult, kind: str, version: int | None = None, sender: str | None = None) -> list:
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
    assert len(CAPO_SPECS) == 10
    for path in CAPO_SPECS:
        check_spec_file(path)
    nodes = {p.stem: load_spec(p).spec.nodes for p in CAPO_SPECS}
    for rounds in range(1, 6):
        assert nodes[f"capo-rounds{rounds}"]["discuss"].params["rounds"] == rounds
    assert nodes["capo"]["discuss"].params["rounds"] == 3
    assert not {n.use.split(".")[0] for n in nodes["capo-nometa"].values()} & {"metaplan", "progress"}
    assert nodes["capo-nometa"]["draft_message"].use == "communication.draft_message"  # CaPo1 talks like CoELA
    faithful = nodes["capo"]["discuss"].params
    assert faithful["designer"] == "random" and faithful["check_fit"] and not faithful["report_progress"]
    assert "max_chars" not in nodes["capo"]["design_plan"].params and "check_plan" not in nodes["capo-lite"]
    lite = nodes["capo-lite"]["discuss"].params
    assert lite["designer"] == "first" and not lite["check_fit"] and lite["report_progress"]
    assert nodes["capo-lite"]["design_plan"].params["max_chars"] == 420
    faithful_llm, lite_llm = load_spec("capo").spec.llm, load_spec("capo-lite").spec.llm
    assert (faithful_llm.temperature, faithful_llm.top_p, faithful_llm.max_tokens) == (0.7, 1.0, 256)
    assert lite_llm.options() == {} and lite_llm.max_tokens is None  # the setting's temperature 0
    for node in ("choose_action", "evaluate_plan", "check_plan"):
        assert nodes["capo"][node].params["reasoning"] == "free"
    assert {nodes["capo-lite"][n].params["reasoning"] for n in ("choose_action", "evaluate_plan")} == {"line"}
    assert "track_progress" not in nodes["capo-noadapt"] and nodes["capo-noadapt"]["discuss"].params["adapt"] is False
    assert nodes["capo-noeval"]["discuss"].params == {**nodes["capo-noadapt"]["discuss"].params, "evaluate": False}
    assert nodes["capo"]["choose_action"].use == "planning.choose_action"  # plan parsing reuses the chooser


def test_the_ablations_talk_as_their_names_say() -> None:
    noeval, _ = play(["capo-noeval", "capo-noeval"], 40)
    assert [m.text.split("]")[0] for m in noeval.messages] == ["[capo plan 1.1"]
    talker = capo_model()

    def sends(messages: list[Any], kwargs: dict[str, Any]) -> str:  # the chooser takes the drafted message
        options = OPTION.findall(messages[-1].content)
        chosen = next((k for k, o in options if o.startswith("[send_message]")), None)
        return f"Answer: {chosen}" if chosen else talker(messages, kwargs)

    nometa, team = play(["capo-nometa", "capo-nometa"], 6, sends)
    assert all(m.memory.channel("capo").discussion is None for m in team) and not capo_messages(nometa, "plan")
    assert nometa.messages and {m.text for m in nometa.messages} == {"I will take the pudding."}
    noadapt, team = play(["capo-noadapt", "capo-noadapt"], 60)
    full, full_team = play(["capo", "capo"], 60)
    assert team[0].memory.channel("capo").discussion.version == 1 and not capo_messages(noadapt, "progress")
    assert full_team[0].memory.channel("capo").discussion.version > 1


def test_shipped_names_resolve_for_teams() -> None:
    from coopgraph.runtime.teams import member_kind

    for path in CAPO_SPECS:
        assert member_kind(Path(path).stem) == "graph"


def test_the_designer_is_drawn_from_the_episode_seed_and_the_whole_team_agrees() -> None:
    from coopgraph.nodes.families.metaplan import random_designer, team_seed

    agents = ["alice", "bob", "carol"]
    for seed in range(12):  # each agent gets seed + its index from the runner, and recovers the same designer
        picks = {random_designer(agents, team_seed(seed + i, agents, me)) for i, me in enumerate(agents)}
        assert len(picks) == 1
    assert {random_designer(agents, s) for s in range(12)} == set(agents)  # not always the first agent
    first, team = play(["capo", "capo"], 6, seed=1)
    again, _ = play(["capo", "capo"], 6, seed=1)
    assert random_designer(["alice", "bob"], 1) == "bob"
    assert [m.sender for m in capo_messages(first, "plan", 1)] == ["bob"]
    assert [(m.sender, m.text) for m in first.messages] == [(m.sender, m.text) for m in again.messages]
    assert [d.memory.channel("capo").discussion.designer for d in team] == ["bob", "bob"]
    assert [d.memory.channel("capo").discussion.role for d in team] == ["evaluator", "designer"]


def test_a_plan_that_still_fits_keeps_the_team_silent_for_the_whole_episode() -> None:
    tracer = Tracer(None)
    quiet, team = play(["capo", "capo"], 60, capo_model(fits=True), tracer)
    loud, loud_team = play(["capo", "capo"], 60, capo_model(fits=False))
    designer = team[0].memory.channel("capo").discussion
    assert designer.version == 1 and any("plan 1 still fits" in e for e in designer.log)
    assert {m.text.split("]")[0] for m in quiet.messages} == {"[capo plan 1.1", "[capo feedback 1.1 agree"}
    assert loud_team[0].memory.channel("capo").discussion.version > 1 and len(loud.messages) > len(quiet.messages)
    assert not capo_messages(quiet, "progress") and not capo_messages(loud, "progress")  # progress is never paid


def test_a_long_plan_is_sent_in_parts_of_at_most_500_characters_each_costing_a_step() -> None:
    model = capo_model()
    long_plan = ("Alice: " + ", ".join(f"check <cabinet> ({n}) and grab what is in it" for n in range(20)) +
                 "\nBob: " + ", ".join(f"explore room {n} slowly" for n in range(20)))

    def verbose(messages: list[Any], kwargs: dict[str, Any]) -> str:
        return long_plan if messages[-1].content.rstrip().endswith("Meta-plan:") else model(messages, kwargs)

    tracer = Tracer(None)
    result, (alice, bob) = play(["capo", "capo"], 10, verbose, tracer)
    parts = capo_messages(result, "plan", 1)
    assert len(parts) >= 3 and all(re.match(rf"\[capo plan 1\.1 {i}/{len(parts)}\]", m.text)
                                   for i, m in enumerate(parts, 1))
    assert all(len(m.text) <= 500 and m.sender == "alice" for m in parts)
    assert [m.step for m in parts] == list(range(parts[0].step, parts[0].step + len(parts)))  # a step each
    assert bob.memory.channel("capo").discussion.meta_plan == alice.memory.channel("capo").discussion.meta_plan
    assert len(alice.memory.channel("capo").discussion.meta_plan) > 500  # no cap in the faithful spec
    assert result.per_agent["alice"]["communication_steps"] >= len(parts)


@pytest.mark.parametrize("env_name", ["cwah", "cwah-noisy"])
def test_the_faithful_wiring_runs_on_cwah_and_noisy_cwah(env_name: str) -> None:
    result, team = play(["capo", "capo"], 40, capo_model(), env_name=env_name)
    assert capo_messages(result, "plan", 1) and result.metrics["subgoals_done"] >= 1
    assert all(m.memory.channel("capo").discussion.meta_plan for m in team)


def test_messages_are_split_at_the_worlds_own_limit() -> None:
    limits = {}
    for name, options in (("cwah", {"episode": "test/0"}), ("toyhouse", {})):
        env = envs.make(name, num_agents=2, **options)
        limits[name] = envs.agent_kit(name, env.agent_info(env.possible_agents[0])).belief.message_limit
    assert limits == {"cwah": 500, "toyhouse": 300}


def test_capo_lite_replans_on_every_progress_event_and_pays_for_progress_reports() -> None:
    model = capo_model(fits=True)  # it would keep the plan, but capo-lite never asks

    calls: list[str] = []

    def recording(messages: list[Any], kwargs: dict[str, Any]) -> str:
        calls.append("\n".join(m.content for m in messages))
        return model(messages, kwargs)

    result, team = play(["capo-lite", "capo-lite"], 60, recording)
    assert not any("Does the meta-plan still fit?" in c for c in calls)
    assert team[0].memory.channel("capo").discussion.version > 1 and capo_messages(result, "progress")
    designs = [c for c in calls if c.rstrip().endswith("Meta-plan:")]
    assert all("At most 25 words per line" in c and "Dialogue so far:" not in c for c in designs)
    assert all(len(m.text) <= 500 and "/" not in m.text.split("]")[0] for m in capo_messages(result, "plan"))
