"""Overcooked decision points: the greedy cook's choices rendered as LLM-Co's prompt, held out by layout."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs.overcooked.layouts import PAPER_LAYOUTS, load_layout, paper_copy
from coopgraph.envs.partners import make_partner
from coopgraph.evals.decisions import DecisionRenderer
from coopgraph.evals.distill.data import chat_prompt, example
from coopgraph.evals.overcooked_decisions import KITCHEN_SPEC, layout_decisions, layout_set, split_of
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import overfetching_policy


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC),
                            horizon=120)


def test_the_paper_layouts_are_held_out_and_training_kitchens_have_two_cooks() -> None:
    assert layout_set("test") == list(PAPER_LAYOUTS)
    train = layout_set("train")
    assert len(train) > 20 and not set(train) & set(PAPER_LAYOUTS)
    assert all(len(load_layout(name).starts) == 2 for name in train)
    own = layout_set("kitchens")
    assert len(own) == 14 and set(own) <= set(train) and all(name.startswith("coopgraph/") for name in own)
    gated = layout_set("gated")
    assert set(gated) <= set(train) and {"coopgraph/bare_room", "coopgraph/bare_room_swapped"} <= set(gated)
    assert all(any("G" in row for row in load_layout(name).terrain) for name in gated)
    assert set(gated) == {n for n in train if any("G" in row for row in load_layout(n).terrain)}
    with pytest.raises(ValueError, match="sets: train"):
        layout_set("everything")


def test_new_training_kitchens_join_the_end_of_the_order_so_an_earlier_rounds_set_is_a_prefix() -> None:
    """Rounds 1-3 recorded the twelve kitchens there were then; `--limit-episodes` replays them only if the
    kitchens added since come after them, whatever their names sort as."""
    own, train = layout_set("kitchens"), layout_set("train")
    assert own[:12] == sorted(own[:12]) and all(not name.startswith("coopgraph/bare_room") for name in own[:12])
    assert own[12:] == ["coopgraph/bare_room", "coopgraph/bare_room_swapped"]
    assert len(train) == 47 and train[45:] == own[12:] and train[33:45] == own[:12]


def test_the_paper_kitchens_under_other_names_or_a_cell_changed_are_held_out_too() -> None:
    """LLM-Co's set ships `simple` (cramped_room), `random0` (forced_coordination), `random3` (counter_circuit),
    `unident` (asymmetric_advantages) and cramped_room with a tomato dispenser: training on them is testing on the
    paper's seven."""
    train = layout_set("train")
    for copy, paper in [("simple", "cramped_room"), ("random0", "forced_coordination"),
                        ("random3", "counter_circuit_o_1order"), ("unident", "asymmetric_advantages"),
                        ("cramped_room_tomato", "cramped_room")]:
        assert paper_copy(copy) == paper and copy not in train and split_of(copy) == "test"
    assert all(paper_copy(name) is None for name in train)
    assert "m_shaped_s" not in train and "corridor" in train


def test_each_point_is_a_real_choice_labelled_with_the_greedy_cooks_pick(records: list[dict[str, Any]]) -> None:
    assert len(records) > 20 and {r["agent"] for r in records} == {"alice", "bob"}
    for record in records:
        assert len(record["options"]) >= 2 and not set(record["options"]) <= {"wait.", "move away."}
        assert record["options"][record["expert_index"]] == record["expert_choice"]
        assert record["messages"][-1]["content"].rstrip().endswith(
            f"Available Actions: [{', '.join(record['options'])}].")
        assert record["split"] == "test"
    again = layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC),
                             horizon=120)
    assert json.dumps(again) == json.dumps(records)


def test_the_rendered_prompt_is_what_the_wiring_sends_in_play(records: list[dict[str, Any]]) -> None:
    lm = scripted_lm(["Action: wait."] * 200)
    env = envs.make("overcooked", layout="cramped_room", horizon=3)
    run_episode(env, [GraphAgent(KITCHEN_SPEC, lm=lm), make_partner("greedy")], seed=0)
    sent = [{"role": {"system": "system", "human": "user", "ai": "assistant"}[m.type], "content": m.content}
            for m in lm.chat_model.calls[0][0]]
    first = next(r for r in records if r["agent"] == "alice" and r["step"] == 0)
    assert sent == first["messages"]


def test_a_distillation_pair_answers_with_the_action_label_of_the_wiring(records: list[dict[str, Any]]) -> None:
    point = records[0]
    pair = example(point, DecisionRenderer(KITCHEN_SPEC))
    assert pair is not None and pair["prompt"] == chat_prompt(point["messages"])
    assert pair["completion"] == f"Action: {point['expert_choice']}"
    assert "Explanation:" not in pair["prompt"] and "Answer in this form: Action: <action>." in pair["prompt"]


def test_a_pair_for_the_published_wiring_explains_the_choice_before_the_action(
        records: list[dict[str, Any]]) -> None:
    """LLM-Co's own reply is `Explanation: ... Action: ...`: a planner distilled for `llmco` learns both, on the
    published prompt (which asks for the explanation), in the shape its grammar reads (a line, then the action),
    and then the end of its turn."""
    point = next(r for r in records if r["expert_choice"].startswith("place onion in c"))
    pair = example(point, DecisionRenderer("llmco"))
    assert pair is not None and "Answer in this form: Explanation: <a short reason" in pair["prompt"]
    assert pair["completion"].endswith("<|im_end|>")  # the turn ends after the action: more thought is allowed
    explanation, action = pair["completion"].removesuffix("<|im_end|>").split("\n")
    assert action == f"Action: {point['expert_choice']}"
    pot = point["expert_choice"].removeprefix("place onion in ").rstrip(".")
    partner = {"alice": "Bob", "bob": "Alice"}[point["agent"]]
    assert explanation.startswith(f"Explanation: I hold an onion and {pot} has ")
    assert f"; I expect {partner} to " in explanation


def test_detours_are_followed_but_the_label_stays_the_experts() -> None:
    detoured = layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC),
                                horizon=120, perturb=0.5)
    off_course = [r for r in detoured if r["followed"] != r["expert_choice"]]
    assert off_course and all(r["options"][r["expert_index"]] == r["expert_choice"] for r in off_course)


def test_the_cli_writes_overcooked_points_and_names_the_sets(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "points.jsonl"
    done = runner.invoke(app, ["data", "decisions", "--env", "overcooked", "--set", "test", "--limit-episodes", "1",
                               "-o", str(out), "--json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["spec"] == "llmco-lite" and summary["team"] == ["greedy", "greedy"] and summary["decisions"] > 0
    first = json.loads(out.read_text().splitlines()[0])
    assert first["episode"] == "cramped_room" and first["env"] == "overcooked"
    wrong = runner.invoke(app, ["data", "decisions", "--env", "overcooked", "--set", "all", "-o", str(out)])
    assert wrong.exit_code == 2 and "the paper's seven" in wrong.output and "Traceback" not in wrong.output
    unmixed = runner.invoke(app, ["data", "decisions", "--env", "overcooked", "--expert-share", "0.5", "-o", str(out)])
    assert unmixed.exit_code == 2 and "needs --learner" in unmixed.output
    elsewhere = runner.invoke(app, ["data", "decisions", "--env", "cwah", "--idle-choices", "-o", str(out)])
    assert elsewhere.exit_code == 2 and "only --env overcooked" in elsewhere.output
    unknown = runner.invoke(app, ["data", "decisions", "--env", "overcooked", "--labeller", "oracle", "-o", str(out)])
    assert unknown.exit_code == 2 and "greedy, greedy-gates" in unknown.output and "Traceback" not in unknown.output
    no_cook = runner.invoke(app, ["data", "decisions", "--env", "cwah", "--labeller", "greedy", "-o", str(out)])
    assert no_cook.exit_code == 2 and "--env overcooked" in no_cook.output


def test_a_dagger_rollin_follows_the_learner_and_keeps_the_greedy_label() -> None:
    """With a learner, the first greedy cook goes where the model's answers take it; each point is still labelled
    with what the greedy cook would have done there, and an unusable answer waits, as in play."""
    script = ["Action: pick up plate from p0."] + ["Action: load soup on plate from c0."] * 20 + ["nonsense"] * 200
    lm = scripted_lm(script)
    rollin = layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC),
                              horizon=40, learner_lm=lm)
    alice = [r for r in rollin if r["agent"] == "alice"]
    assert {r["rollin"] for r in alice} == {"learner"} and {r["rollin"] for r in rollin if r["agent"] == "bob"} == {
        "expert"}
    assert alice[0]["followed"] == "pick up plate from p0." and alice[0]["expert_choice"].startswith("pick up onion")
    plated = [r for r in alice[1:] if "load soup on plate from c0." in r["options"]]
    assert plated and plated[0]["followed"] == "load soup on plate from c0."
    assert plated[0]["expert_choice"] != "load soup on plate from c0."  # the pot is not cooking yet: set it down
    assert any(r["followed"] == "wait." for r in alice)  # "nonsense" is not an action: the cook waits
    assert len(lm.chat_model.calls) == len(alice)


def test_with_an_expert_share_the_greedy_cook_takes_over_at_some_choices_without_asking() -> None:
    """DAgger's mixing: at a seeded share of the learner's choices the greedy cook follows its own pick, so a loop
    of the learner's ends; those choices cost no call and still carry the greedy label."""
    lm = scripted_lm(["Action: wait."] * 400)
    rollin = layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC),
                              horizon=40, learner_lm=lm, expert_share=0.5)
    alice = [r for r in rollin if r["agent"] == "alice"]
    own = [r for r in alice if r["followed"] == r["expert_choice"] and r["expert_choice"] != "wait."]
    assert own and len(lm.chat_model.calls) < len(alice)
    assert {r["rollin"] for r in alice} == {"learner"}
    again = layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC),
                             horizon=40, learner_lm=scripted_lm(["Action: wait."] * 400), expert_share=0.5)
    assert [r["followed"] for r in again] == [r["followed"] for r in rollin]


def test_a_rollin_through_a_steady_variant_leaves_off_what_just_did_nothing_as_play_does() -> None:
    """The recorder hears the skill book's no-effect report, so the list a steady variant renders for a point is
    the list it would show in play: a load that did nothing at the unchanged pot is left off, in llmco-lite it
    stays."""
    def loads(spec: str) -> list[dict[str, Any]]:
        script = ["Action: pick up plate from p0."] + ["Action: load soup on plate from c0."] * 100
        rollin = layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(spec),
                                  horizon=40, learner_lm=scripted_lm(script))
        return [r for r in rollin if r["agent"] == "alice" and "place plate on k1." in r["options"]]

    assert all("load soup on plate from c0." in r["options"] for r in loads("llmco-lite"))
    steady = loads("llmco-lite-steady")
    assert steady[0]["followed"] == "load soup on plate from c0."
    assert any("load soup on plate from c0." not in r["options"] for r in steady)


def test_a_rollin_in_a_kitchen_without_counters_labels_the_onion_no_pot_needs_and_says_what_the_point_is() -> None:
    """What failed the round-3 planner on the paper's gated layouts, reached on a training kitchen: holding an
    onion no pot needs, with no counter to set it down, the greedy cook waits or steps aside; each point carries
    its situation class for a balanced mix."""
    rollin = layout_decisions("coopgraph/bare_room", ["greedy", "greedy"], renderer=DecisionRenderer(
        "llmco-lite-steady"), horizon=60, learner_lm=scripted_lm(overfetching_policy))
    assert all(isinstance(r["situation"], str) for r in rollin)
    stuck = [r for r in rollin if r["situation"] == "holding onion; no pot needs it, nowhere to set it down"]
    assert len(stuck) > 10 and {r["expert_choice"] for r in stuck} <= {"wait.", "move away."}
    assert all(r["followed"] == "place onion in c0." and r["options"][0] == "place onion in c0." for r in stuck)
    assert {r["situation"] for r in rollin} >= {"hands empty; pots need onions", "holding onion; a pot in reach "
                                                 "needs it"}


def test_a_rollin_through_llmco_lite_yield_asks_only_to_wait_or_step_aside_where_the_onion_has_nowhere_to_go() -> None:
    """The choice llmco-lite-yield leaves a planner by the full pot, recorded with the greedy cook's pick."""
    rollin = layout_decisions("coopgraph/bare_room", ["greedy", "greedy"], renderer=DecisionRenderer(
        "llmco-lite-yield"), horizon=60, learner_lm=scripted_lm(overfetching_policy))
    stuck = [r for r in rollin if r["agent"] == "alice"
             and r["situation"] == "holding onion; no pot needs it, nowhere to set it down"]
    idle_only = [r for r in stuck if r["options"] == ["wait.", "move away."]]
    assert len(idle_only) > 10 and {r["expert_choice"] for r in idle_only} <= {"wait.", "move away."}


def test_idle_choices_add_the_points_where_waiting_and_stepping_aside_are_all_there_is() -> None:
    """An LLM-Co planner is asked these too (docs/methods/llmco.md, round 15); by default they stay out, so the
    rounds before it replay unchanged."""
    renderer = DecisionRenderer(KITCHEN_SPEC)
    plain = layout_decisions("coopgraph/bare_room", ["greedy", "greedy"], renderer=renderer, horizon=150)
    every = layout_decisions("coopgraph/bare_room", ["greedy", "greedy"], renderer=renderer, horizon=150,
                             idle_choices=True)

    def idle_only(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in points if set(r["options"]) <= {"wait.", "move away."}]

    assert not idle_only(plain) and idle_only(every)
    assert len(every) == len(plain) + len(idle_only(every))  # the same play, more of it recorded
    assert all(r["options"][r["expert_index"]] == r["expert_choice"] for r in idle_only(every))


def holds_its_soup_aside(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """A planner that fetches a plate, steps aside until a soup cooks, loads it, and then, with no serving spot in
    reach, keeps stepping aside: round 16 of the kitchen planner on no_counter_door."""
    text = str(messages[-1].content)
    match = re.search(r"Available Actions: \[(.*)\]", text)
    options = match.group(1).split(", ") if match else []
    if "pick up plate from p0." in options:
        return "Action: pick up plate from p0."
    if "load soup on plate from c0." in options and "is not cooking" not in text:
        return "Action: load soup on plate from c0."
    return "Action: move away."


def test_the_gate_aware_labeller_says_wait_where_the_greedy_cook_steps_aside_from_a_dispenser() -> None:
    """Holding a soup behind the shut gates beside a partner with empty hands, the greedy cook's label steps aside
    from whichever dispenser the planner stands by; the gate-aware labeller waits unless it blocks a gate."""
    def idle_labels(labeller: str) -> list[tuple[str, str]]:
        points = layout_decisions("no_counter_door", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC),
                                  horizon=120, learner_lm=scripted_lm(holds_its_soup_aside), idle_choices=True,
                                  labeller=labeller)
        return [(r["followed"], r["expert_choice"]) for r in points if r["agent"] == "alice"
                and r["situation"] == "holding soup; no serving spot in reach"]

    greedy, gates = idle_labels("greedy"), idle_labels("greedy-gates")
    assert len(greedy) == len(gates) > 20 and {f for f, _ in gates} == {"move away."}  # the same play
    assert sum(label == "move away." for _, label in greedy) >= len(greedy) - 2
    assert sum(label == "wait." for _, label in gates) > len(gates) / 2
    with pytest.raises(ValueError, match="greedy, greedy-gates"):
        layout_decisions("cramped_room", ["greedy", "greedy"], renderer=DecisionRenderer(KITCHEN_SPEC), horizon=5,
                         labeller="oracle")


def test_the_gate_aware_labeller_opens_the_gate_away_from_a_partner_stepping_aside_and_the_team_cooks_again() -> None:
    """A planner that holds its soup aside on no_counter_door for 60 ticks, then plays the labeller's rules: with both
    gates equally near, the gate-aware labeller opens the one the greedy partner's step aside does not walk into
    (docs/methods/llmco.md, "Round 17"). The greedy cook's rules lose the rest of the episode to the collision."""
    from coopgraph.evals.overcooked_decisions import LABELLERS

    def holds_its_soup_then_follows(snap: Any) -> str:
        holding = snap.observation.time < 60 and snap.observation.holding == "soup in plate"
        return "move away." if holding else str(snap.choice.text)

    def play(labeller: str) -> dict[str, Any]:
        seat = LABELLERS[labeller](5, 0.0, holds_its_soup_then_follows, 0.0, None, True)
        return run_episode(envs.make("overcooked", layout="no_counter_door", horizon=400),
                           [seat, make_partner("greedy")], seed=0).metrics

    greedy, gates = play("greedy"), play("greedy-gates")
    assert greedy["score"] <= 60 < 140 <= gates["score"]
    assert gates["deliveries_by_agent"]["alice"] >= 3 and gates["deliveries_by_agent"]["bob"] >= 3


def test_the_lookahead_labeller_steps_aside_from_the_pot_where_the_greedy_cook_waits_half_the_time() -> None:
    """cramped_room, a planner that keeps asking to serve while the greedy partner stands on the window's free side
    (round 16's loop, docs/methods/llmco.md, "Round 17"): the partner places and picks up one onion there, and the
    greedy cook's label flips between `wait.` and `move away.` with what the partner holds; the lookahead labeller's
    says `move away.` from the pot the partner's onion is for, every time."""
    from coopgraph.evals.overcooked_decisions import LABELLERS

    def insists_on_serving(snap: Any) -> str:
        serving = snap.observation.time < 200 and snap.observation.holding == "soup in plate"
        return "place soup for delivery in d0." if serving else str(snap.choice.text)

    def stuck_labels(labeller: str) -> list[str]:
        seat = LABELLERS[labeller](5, 0.0, insists_on_serving, 0.0, None, True)
        run_episode(envs.make("overcooked", layout="cramped_room", horizon=400), [seat, make_partner("greedy")], seed=0)
        return [s.choice.text for s in seat.snapshots if s.followed.text.startswith("place soup for delivery")
                and s.choice.text != s.followed.text]

    greedy, ahead = stuck_labels("greedy"), stuck_labels("greedy-ahead")
    assert len(greedy) == len(ahead) > 50  # the same play: the planner's own answers
    assert greedy.count("wait.") > 20 and greedy.count("move away.") > 20
    assert set(ahead) == {"move away."}
