"""Replaying a recorded decision restores the agent as it was and asks the model again."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.record.checkpoints import UnsafeCheckpoint, read_checkpoint, sqlite_saver
from coopgraph.record.trace_file import Tracer, read_events
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.replay_decision import ReplayError, replay, step_checkpoints
from coopgraph.runtime.teams import make_team
from coopgraph.testing import scripted_lm

OPTION = re.compile(r"^([A-Z]{1,2})\. ", re.MULTILINE)


def by_prompt(salt: str = "") -> Any:
    """A model whose answer depends on the prompt alone: the same situation always gets the same answer."""

    def reply(messages: list[Any], kwargs: dict[str, Any]) -> str:
        text = str(messages[-1].content)
        letters = OPTION.findall(text)
        if not letters:
            return "I go for <apple> (21); the <book> (22) may be in the <chest> (13)."
        pick = int(hashlib.sha256((salt + text).encode()).hexdigest(), 16) % len(letters)
        return f"Reasoning: chosen\nAnswer: {letters[pick]}"

    return reply


def record(tmp_path: Path, spec: str = "coela", steps: int = 14) -> Path:
    team = make_team([spec, "toyhouse-expert"], lm_factory=lambda: scripted_lm(by_prompt()), env="toyhouse",
                     checkpointer=sqlite_saver(tmp_path / "checkpoints.sqlite"))
    tracer = Tracer(tmp_path / "trace.jsonl")
    run_episode(envs.make("toyhouse", episode="toyhouse/0", num_agents=2), team, max_steps=steps, tracer=tracer)
    tracer.close()
    return tmp_path / "trace.jsonl"


@pytest.mark.parametrize("spec", ["coela", "capo", "reveca"])
def test_replaying_every_decision_with_the_same_model_chooses_what_the_run_chose(tmp_path: Path, spec: str) -> None:
    trace = record(tmp_path, spec)
    decisions = [s.decision for s in step_checkpoints(read_events(trace))["agent_0"] if s.decision]
    assert len(decisions) >= 3
    for decision in decisions:
        again = replay(trace, "agent_0", decision=decision, lm=scripted_lm(by_prompt()))
        assert not again.differs, (decision, again.plan, again.original_plan)
        assert again.action == again.original_action


def test_another_model_on_the_same_situation_is_reported_as_differing(tmp_path: Path) -> None:
    trace = record(tmp_path)
    outcomes = [replay(trace, "agent_0", decision=n, lm=scripted_lm(by_prompt("other"))) for n in (1, 2, 3)]
    assert any(o.differs for o in outcomes)
    assert all(o.prompt is not None and o.answer for o in outcomes)


def test_a_replay_sees_the_same_prompt_as_the_run(tmp_path: Path) -> None:
    trace = record(tmp_path)
    events = read_events(trace)
    second = next(s for s in step_checkpoints(events)["agent_0"] if s.decision == 2)
    calls = [e for e in events if e["type"] == "llm_call" and e["agent"] == "agent_0"]
    again = replay(trace, "agent_0", decision=2, lm=scripted_lm(by_prompt()))
    assert again.step == second.step
    assert again.prompt in [c["prompt"] for c in calls]


def test_asking_for_what_the_run_does_not_have_names_what_it_has(tmp_path: Path) -> None:
    trace = record(tmp_path)
    with pytest.raises(ReplayError, match="agents with checkpoints: agent_0"):
        replay(trace, "agent_1", decision=1, lm=scripted_lm(by_prompt()))
    with pytest.raises(ReplayError, match="there is no decision 999"):
        replay(trace, "agent_0", decision=999, lm=scripted_lm(by_prompt()))
    with pytest.raises(ReplayError, match="one decision"):
        replay(trace, "agent_0", lm=scripted_lm(by_prompt()))


def test_a_run_with_checkpoints_in_memory_says_how_to_make_it_replayable(tmp_path: Path) -> None:
    team = make_team(["coela"], lm_factory=lambda: scripted_lm(by_prompt()), env="toyhouse")
    tracer = Tracer(tmp_path / "trace.jsonl")
    run_episode(envs.make("toyhouse", episode="toyhouse/0", num_agents=1), team, max_steps=4, tracer=tracer)
    tracer.close()
    with pytest.raises(ReplayError, match="kept its checkpoints in memory"):
        replay(tmp_path / "trace.jsonl", "agent_0", decision=1, lm=scripted_lm(by_prompt()))


def test_a_checkpoint_naming_a_foreign_callable_is_refused() -> None:
    import os
    import pickle

    from coopgraph.record.checkpoints import StateSerializer

    class Evil:
        def __reduce__(self) -> tuple[Any, tuple[str]]:
            return (os.system, ("echo pwned",))

    with pytest.raises(UnsafeCheckpoint, match="system"):
        StateSerializer().loads_typed(("pickle", pickle.dumps(Evil())))
    kind, payload = StateSerializer().dumps_typed({"plan": [1, 2], "seen": {3}})
    assert StateSerializer().loads_typed((kind, payload)) == {"plan": [1, 2], "seen": {3}}


def test_checkpoints_hold_the_belief_of_that_step(tmp_path: Path) -> None:
    trace = record(tmp_path, steps=6)
    steps = step_checkpoints(read_events(trace))["agent_0"]
    first, last = (read_checkpoint(tmp_path / "checkpoints.sqlite", s.thread_id, s.checkpoint_id)
                   for s in (steps[0], steps[-1]))
    assert first["observation"].time == steps[0].step and last["observation"].time == steps[-1].step
    assert first["belief"] is not last["belief"] and last["belief"].step > first["belief"].step


def test_the_trace_view_gives_each_decision_its_replay_command(tmp_path: Path) -> None:
    from coopgraph.record.viewer import write_view
    from coopgraph.record.viewer.model import build_view

    trace = record(tmp_path, steps=8)
    view = build_view(read_events(trace), trace=str(trace))
    mine = [d for d in view["decisions"] if d["agent"] == "agent_0"]
    assert mine and all(d["replay"] == f"coopgraph replay {trace} --agent agent_0 --decision {n}"
                        for n, d in enumerate(mine, start=1))
    page = tmp_path / "view.html"
    write_view(trace, page)
    assert "coopgraph replay" in page.read_text() and "d.replay" in page.read_text()
