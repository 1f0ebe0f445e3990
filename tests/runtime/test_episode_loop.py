"""run_episode: drives a team through an environment, returns metrics and writes the trace events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coopgraph.envs import make
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import MemberBase, Observation, PrimitiveAction
from coopgraph.record.trace_file import Tracer, read_events
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.result import RunResult


class Chatty(MemberBase):
    """A scripted member that sends one over-long message, then waits."""

    name = "chatty"

    def reset(self, agent_id: str, env_info: dict[str, Any], seed: int) -> None:
        self.sent = False

    def act(self, observation: Observation) -> PrimitiveAction:
        if self.sent:
            return PrimitiveAction(kind="wait")
        self.sent = True
        return PrimitiveAction(kind="send_message", message="hi " * 200)


def test_run_episode_returns_metrics_and_writes_trace(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    tracer = Tracer(path)
    env = make("cwah", episode="test/5", num_agents=2)
    result = run_episode(env, [make_partner("mhp"), make_partner("mhp-silent")], tracer=tracer)
    tracer.close()
    assert isinstance(result, RunResult)
    assert result.success and 0 < result.steps < 250 and result.team == ["mhp", "mhp-silent"]
    assert result.trace_path == str(path) and result.episode_id == "test/5" and result.env == "cwah"
    assert result.metrics["steps"] == result.steps and result.metrics["success"] == 1.0
    assert {"travel_distance", "communication_steps", "characters_sent"} <= set(result.metrics)
    assert set(result.per_agent) == {"alice", "bob"} and result.per_agent["bob"]["communication_steps"] == 0
    assert len(result.messages) == result.metrics["communication_steps"]
    events = read_events(path)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "episode_start" and kinds[-1] == "episode_end"
    steps = [e for e in events if e["type"] == "env_step"]
    assert len(steps) == result.steps and steps[-1]["step"] == result.steps
    first = steps[0]["agents"]["alice"]
    assert {"action", "ok", "reason", "room", "position", "holding", "message"} <= set(first)
    messages = [e for e in events if e["type"] == "message"]
    assert len(messages) == len(result.messages) and all(e["agent"] == "alice" for e in messages)
    assert any(e["type"] == "plan" and e["agent"] == "bob" for e in events)  # bound tracer reached members
    assert events[-1]["metrics"]["steps"] == result.steps


def test_run_episode_stops_at_max_steps_and_counts_message_costs(tracer: Tracer) -> None:
    env = make("cwah", episode="test/0", num_agents=2)
    result = run_episode(env, [Chatty(), Chatty()], max_steps=5, tracer=tracer)
    assert not result.success and result.steps == 5
    assert result.metrics["communication_steps"] == 2 and result.metrics["characters_sent"] == 1000
    assert all(m.truncated and len(m.text) == 500 for m in result.messages)
    assert result.trace_path is None
    assert [e["type"] for e in tracer.events].count("env_step") == 5


def test_run_episode_rejects_a_team_of_the_wrong_size() -> None:
    with pytest.raises(ValueError, match="2 agents"):
        run_episode(make("cwah", episode="test/0"), [make_partner("mhp")])


class TickingClock:
    """A clock that moves `tick` seconds each time it is read: a budget passes after a known number of steps."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_a_wall_budget_ends_the_episode_at_the_end_of_the_step_that_passes_it(tracer: Tracer) -> None:
    from coopgraph.runtime.result import BudgetStop

    env = make("cwah", episode="test/5", num_agents=2)
    # the clock reads 10 at the start, then 20 and 30 after the first two steps: 15 s pass during the second
    result = run_episode(env, [make_partner("mhp"), make_partner("mhp")], tracer=tracer, wall_budget_s=15,
                         clock=TickingClock(10.0))
    played = [e for e in tracer.events if e["type"] == "env_step"]
    assert len(played) == 2 and not result.success and result.steps == played[-1]["step"]
    assert result.stopped_at_budget == BudgetStop(step=result.steps, max_steps=result.max_steps, budget_s=15.0,
                                                  wall_time_s=20.0)
    start, end = tracer.events[0], tracer.events[-1]
    assert start["wall_budget_s"] == 15.0
    assert end["type"] == "episode_end" and end["stopped_at_budget"] == result.stopped_at_budget.model_dump()


def test_without_a_budget_or_within_it_the_episode_runs_to_its_end(tracer: Tracer) -> None:
    env = make("cwah", episode="test/5", num_agents=2)
    within = run_episode(env, [make_partner("mhp"), make_partner("mhp")], wall_budget_s=1e9)
    assert within.success and within.stopped_at_budget is None
    plain = run_episode(make("cwah", episode="test/5", num_agents=2), [make_partner("mhp"), make_partner("mhp")],
                        tracer=tracer)
    assert plain.steps == within.steps and plain.stopped_at_budget is None
    assert "stopped_at_budget" not in tracer.events[-1] and "wall_budget_s" not in tracer.events[0]


@pytest.mark.parametrize("budget", [0, -1.0, True, "30", float("inf")])
def test_a_wall_budget_must_be_some_seconds(budget: object) -> None:
    with pytest.raises(ValueError, match=r"wall_budget_s must be a number of seconds above 0"):
        run_episode(make("cwah", episode="test/0", num_agents=2), [Chatty(), Chatty()],
                    wall_budget_s=budget)  # type: ignore[arg-type]
