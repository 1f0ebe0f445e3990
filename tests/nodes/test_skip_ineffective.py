"""Leaving off a directive that just did nothing (`skip_ineffective`, llmco-steady): a planner that repeats it
from an unchanged kitchen is offered something else, and the directive comes back once the kitchen changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec
from coopgraph.memory.episodic import EpisodicMemory
from coopgraph.nodes.families.planning import without_ineffective
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import choose, read_state

FULL = "holding onion; pot: full"
PUT = Affordance(kind="put", group=AffordanceGroup.DELIVER, target_id=1, target_name="pot", situation=FULL)
SHELF = Affordance(kind="put", group=AffordanceGroup.OTHER, target_id=2, target_name="shelf",
                   situation="holding onion; shelf: empty")
WAIT = Affordance(kind="wait", group=AffordanceGroup.WAIT)
ASIDE = Affordance(kind="step_aside")  # no target: idle


def test_an_action_that_did_nothing_is_left_off_while_its_situation_stands() -> None:
    memory = EpisodicMemory(5, 0)
    options = [PUT, SHELF, WAIT, ASIDE]
    assert without_ineffective(options, memory) == options  # nothing recorded yet
    memory.note_effect(PUT.text, FULL)
    assert without_ineffective(options, memory) == [SHELF, WAIT, ASIDE]
    changed = PUT.model_copy(update={"situation": "holding onion; pot: 2 of 3"})
    assert without_ineffective([changed, SHELF, WAIT], memory) == [changed, SHELF, WAIT]  # offered again
    memory.note_effect(PUT.text, None)  # its last attempt worked
    assert without_ineffective(options, memory) == options


def test_waiting_stepping_aside_and_messages_stay_and_the_list_is_never_left_with_only_them() -> None:
    memory = EpisodicMemory(5, 0)
    for option in (PUT, SHELF):
        memory.note_effect(option.text, option.situation)
    memory.note_effect(WAIT.text, "anything")  # no world reports a wait; even so it stays
    message = message_affordance("hi")
    assert without_ineffective([message, PUT, SHELF, WAIT, ASIDE], memory) == [message, PUT, SHELF, WAIT, ASIDE]
    assert without_ineffective([PUT, WAIT], memory) == [PUT, WAIT]
    untracked = Affordance(kind="put", target_id=3, target_name="bin")  # a world that gives no situation
    memory.note_effect(untracked.text, "x")
    assert without_ineffective([untracked, PUT, WAIT], memory) == [untracked, WAIT]


def test_always_leaves_only_waiting_and_stepping_aside_when_nothing_else_worked() -> None:
    memory = EpisodicMemory(5, 0)
    memory.note_effect(PUT.text, FULL)
    assert without_ineffective([PUT, WAIT, ASIDE], memory) == [PUT, WAIT, ASIDE]  # the steady rule: the list whole
    assert without_ineffective([PUT, WAIT, ASIDE], memory, always=True) == [WAIT, ASIDE]
    assert without_ineffective([PUT, SHELF, WAIT], memory, always=True) == [SHELF, WAIT]


def test_always_without_the_steady_rule_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("extends: llmco\nname: bad\nnodes:\n  list_actions:\n    params:\n"
                    "      skip_ineffective_always: true\n")
    with pytest.raises(SpecInvalid) as caught:
        load_spec(path)
    error = caught.value.errors[0]
    assert error.file == str(path) and error.line is not None and error.line >= 4
    assert "skip_ineffective_always needs skip_ineffective" in error.message


@pytest.mark.parametrize("value", ["sometimes", "[1]", "{a: 1}"])
def test_a_bad_value_is_refused_naming_file_line_and_param(tmp_path: Path, value: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"extends: llmco\nname: bad\nnodes:\n  list_actions:\n    params:\n"
                    f"      skip_ineffective: {value}\n")
    with pytest.raises(SpecInvalid) as caught:
        load_spec(path)
    error = caught.value.errors[0]
    assert (error.code, error.file, error.line) == ("E203", str(path), 6)
    assert "skip_ineffective" in error.message and "boolean" in error.message


def test_the_steady_variants_are_llmco_and_llmco_lite_with_only_the_param_on() -> None:
    for variant, base in (("llmco-steady", "llmco"), ("llmco-lite-steady", "llmco-lite")):
        steady, published = load_spec(variant, env="overcooked").spec, load_spec(base, env="overcooked").spec
        assert steady.nodes["list_actions"].params == {"skip_ineffective": True}
        assert not published.nodes["list_actions"].params
        assert steady.nodes["choose_action"] == published.nodes["choose_action"]
        assert "small-model variant" in steady.description and "not the published method" in steady.description
    yielding, steady = load_spec("llmco-lite-yield", env="overcooked").spec, load_spec("llmco-lite-steady").spec
    assert yielding.nodes["list_actions"].params == {"skip_ineffective": True, "skip_ineffective_always": True}
    assert yielding.nodes["choose_action"] == steady.nodes["choose_action"]
    assert "small-model variant" in yielding.description and "not the published method" in yielding.description


# ------------------------------------------------------------------------------------- on cramped_room
def _answer(*wanted: str) -> Any:
    """A scripted planner: the first of `wanted` that is listed for what it holds, else the first option."""
    def script(messages: list[Any], kwargs: dict[str, Any]) -> str:
        kitchen = read_state(str(messages[-1].content))
        if kitchen is None:
            return "Got it!"
        pick = next((w for w in wanted if w in kitchen.options), kitchen.options[0])
        return f"Explanation: scripted. Action: {pick}"
    return script


def _play(spec: str, script: Any, ticks: int) -> tuple[Any, list[dict[str, Any]], list[Any]]:
    """Alice on `spec` beside the greedy cook: the result, Alice's plan ends, and the kitchens her prompts show."""
    lm = scripted_lm(script)
    tracer = Tracer(None)
    result = run_episode(envs.make("overcooked", layout="cramped_room"),
                         [GraphAgent(spec, lm=lm), make_partner("greedy")], max_steps=ticks, seed=0, tracer=tracer)
    ends = [e for e in tracer.events if e["type"] == "plan_end" and e.get("agent") == "alice"]
    shown = [k for k in map(read_state, lm.chat_model.prompts()) if k is not None]
    return result, ends, shown


def _longest_repeat(ends: list[dict[str, Any]], plan: str) -> int:
    longest = run = 0
    for end in ends:
        run = run + 1 if (end["plan"], end["status"]) == (plan, "failed") else 0
        longest = max(longest, run)
    return longest


ONION = "place onion in c0."
LOAD = "load soup on plate from c0."


def test_published_llmco_keeps_offering_an_onion_for_the_full_pot_and_a_fixed_planner_loops_on_it() -> None:
    """Today's behaviour, which the published wiring keeps (LLM-Co does not check a pot's fullness)."""
    result, ends, shown = _play("llmco", _answer(ONION), ticks=150)
    full = [k for k in shown if k.holding == "onion" and k.pots["c0"][0] == 3]
    assert full and all(ONION in k.options for k in full)
    assert _longest_repeat(ends, ONION) >= 50 and result.metrics["score"] == 0


def test_llmco_steady_offers_something_else_at_the_full_pot_and_the_episode_runs_its_400_ticks() -> None:
    result, ends, shown = _play("llmco-steady", _answer(ONION), ticks=400)
    full = [k for k in shown if k.holding == "onion" and k.pots["c0"][0] == 3]
    instead = [k for k in full if ONION not in k.options]
    assert instead and all(any(o.startswith("place onion on k") for o in k.options) for k in instead)
    assert result.steps == 400 and result.metrics["score"] >= 20


def test_a_plate_at_a_cooking_pot_is_offered_the_load_again_once_the_soup_is_ready() -> None:
    """A planner that loads whenever it may, else steps aside: under llmco it stands at the empty pot's only side
    with its plate for good (the greedy cook cannot fill the pot); under llmco-steady the load is left off until
    the pot changes, and once the soup is cooked it is offered again and taken."""
    script = _answer(LOAD, "place soup for delivery in d0.", "pick up plate from p0.", "move away.")
    published, ends, shown = _play("llmco", script, ticks=150)
    assert all(LOAD in k.options for k in shown if k.holding == "plate")
    assert published.metrics["score"] == 0 and _longest_repeat(ends, LOAD) >= 50
    steady, ends, shown = _play("llmco-steady", script, ticks=400)
    cooking = [k for k in shown if k.holding == "plate" and k.pots["c0"][1] == "still cooking"]
    cooked = [k for k in shown if k.holding == "plate" and k.pots["c0"][1] == "cooked"]
    assert any(LOAD not in k.options for k in cooking)
    assert cooked and all(LOAD in k.options for k in cooked)
    assert ("done" in {e["status"] for e in ends if e["plan"] == LOAD}) and steady.metrics["score"] >= 20


def _overfetching(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """The round-3 kitchen planner's habits, scripted: an onion whenever its hands are empty, into a pot if one is
    listed, else onto a counter, else into the full pot again; only when neither is listed does it idle as the
    greedy cook would (a step aside if its partner finds the pot blocked by it, else a wait)."""
    kitchen = read_state(str(messages[-1].content))
    if kitchen is None:
        return "Got it!"
    wants = {"nothing": ("pick up onion from o",), "onion": ("place onion in c", "place onion on k"),
             "plate": ("load soup",), "soup in plate": ("place soup for delivery",)}[kitchen.holding]
    pick = next((o for w in wants for o in kitchen.options if o.startswith(w)), None)
    return f"Action: {pick or choose(kitchen)[0]}"


def test_on_cramped_room_an_overfetching_planner_steps_out_of_the_pots_access_only_under_llmco_lite_yield() -> None:
    """Round 3 on cramped_room: counters full of onions, one more onion by the full pot. Under llmco-lite-steady
    the list stays whole and the planner asks for the pot from its only access (the greedy cook serves once);
    under llmco-lite-yield only `wait.` and `move away.` are left, it steps aside and the greedy cook serves."""
    steady, ends, shown = _play("llmco-lite-steady", _overfetching, ticks=400)
    stuck = [k for k in shown if k.holding == "onion" and k.pots["c0"][0] == 3 and ONION in k.options
             and not any(o.startswith("place onion on k") for o in k.options)]
    assert len(stuck) > 200 and steady.metrics["score"] <= 20
    yielding, ends, shown = _play("llmco-lite-yield", _overfetching, ticks=400)
    idle_only = [k for k in shown if k.options == ["wait.", "move away."]]
    assert idle_only and yielding.metrics["score"] >= 5 * max(steady.metrics["score"], 20)
