"""Leaving off a wait chosen from the very view shown now (`skip_stalled_wait`, the nostall variants): a planner
that waits at temperature 0 where nothing it sees moves is offered something else, and only then."""

from __future__ import annotations

import pickle
from typing import Any

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance
from coopgraph.graphs.loader import load_spec
from coopgraph.memory.episodic import EpisodicMemory
from coopgraph.nodes.families.planning import view_digest, without_stalled_wait
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import choose, read_state

WAIT = Affordance(kind="wait", group=AffordanceGroup.WAIT)
PUT = Affordance(kind="put", group=AffordanceGroup.DELIVER, target_id=1, target_name="pot")
ASIDE = Affordance(kind="step_aside")


def test_a_view_seen_again_is_told_apart_from_a_new_one_and_the_clock_does_not_count() -> None:
    memory = EpisodicMemory(5, 0)
    view = {"progress": "I hold an onion.", "action_texts": ["wait."] * 5, "step": 10, "previous_actions": "x (10)"}
    assert memory.note_view(view_digest(view)) is False  # nothing seen before
    assert memory.note_view(view_digest({**view, "step": 11, "previous_actions": "x (11)"})) is True
    assert memory.note_view(view_digest({**view, "progress": "I hold nothing."})) is False
    memory.clear()
    assert memory.note_view(view_digest(view)) is False


def test_an_older_checkpoint_restores_with_no_view_recorded() -> None:
    memory = EpisodicMemory(5, 0)
    old = {k: v for k, v in memory.__dict__.items() if k != "_last_view"}
    restored = EpisodicMemory.__new__(EpisodicMemory)
    restored.__setstate__(old)
    assert restored.note_view("a") is False and pickle.loads(pickle.dumps(restored)).note_view("a") is True


def test_only_the_wait_that_was_chosen_is_left_off_and_never_down_to_a_message() -> None:
    options = [PUT, WAIT, ASIDE]
    assert without_stalled_wait(options, None) == options  # a new view: the list whole
    assert without_stalled_wait(options, WAIT.text) == [PUT, ASIDE]
    assert without_stalled_wait(options, PUT.text) == options  # only a wait is ever left off this way
    message = message_affordance("hi")
    assert without_stalled_wait([message, WAIT], WAIT.text) == [message, WAIT]


def test_the_nostall_variants_are_the_steady_ones_with_only_the_param_added() -> None:
    for variant, base in (("llmco-nostall", "llmco-steady"), ("llmco-lite-nostall", "llmco-lite-steady")):
        nostall, steady = load_spec(variant, env="overcooked").spec, load_spec(base, env="overcooked").spec
        assert nostall.nodes["list_actions"].params == {"skip_ineffective": True, "skip_stalled_wait": True}
        assert nostall.nodes["choose_action"] == steady.nodes["choose_action"]
        assert "small-model variant" in nostall.description and "not the published method" in nostall.description
    assert not load_spec("llmco", env="overcooked").spec.nodes["list_actions"].params


# ------------------------------------------------------------------------------------- in a kitchen
def _waits_holding_an_onion(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """Round 4's habit on no_counter_door, scripted: holding an onion it waits whenever waiting is listed;
    otherwise it picks as the greedy cook would."""
    kitchen = read_state(str(messages[-1].content))
    if kitchen is None:
        return "Got it!"
    if kitchen.holding == "onion" and "wait." in kitchen.options:
        return "Action: wait."
    return f"Action: {choose(kitchen)[0]}"


def _play(spec: str, layout: str) -> tuple[Any, list[str], list[dict[str, Any]]]:
    lm = scripted_lm(_waits_holding_an_onion)
    tracer = Tracer(None)
    result = run_episode(envs.make("overcooked", layout=layout),
                         [GraphAgent(spec, lm=lm), make_partner("greedy")], max_steps=400, seed=0, tracer=tracer)
    states = [str(msgs[-1].content) for msgs, _ in lm.chat_model.calls if read_state(str(msgs[-1].content))]
    return result, states, [e for e in tracer.events if e["type"] == "left_off" and "stalled" in e]


def test_a_planner_that_waits_with_an_onion_serves_only_when_the_stalled_wait_is_left_off() -> None:
    """Under llmco-lite-steady it stands with its onion for good and the team serves nothing; under the nostall
    variant `wait.` goes off the list only after five waits from one unchanged view, and the team cooks."""
    steady, shown, left_off = _play("llmco-lite-steady", "cramped_room")
    assert steady.metrics["score"] == 0 and not left_off
    assert all("wait." in read_state(s).options for s in shown)  # type: ignore[union-attr]
    nostall, shown, left_off = _play("llmco-lite-nostall", "cramped_room")
    assert left_off and all(e["stalled"] == ["wait."] for e in left_off)  # never anything but the wait
    without_wait = [s for s in shown if "wait." not in read_state(s).options]  # type: ignore[union-attr]
    assert without_wait and all("action history: wait., wait., wait., wait., wait.." in s for s in without_wait)
    assert nostall.metrics["score"] >= 100 and nostall.metrics["deliveries_by_agent"]["alice"] >= 1
