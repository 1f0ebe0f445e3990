"""A step's deciding agents ask at once, yet the trace reads as if they took turns (coopgraph/runtime/joint_step.py)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from coopgraph.envs.protocol import WAIT, MemberBase
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.joint_step import HeldTracer, JointDecider


class Waiter(MemberBase):
    """A member that waits on a model: it writes an event, meets its partner at a barrier, writes another."""

    decides_concurrently = True

    def __init__(self, name: str, barrier: threading.Barrier, tracer: HeldTracer, after: threading.Event | None,
                 done: threading.Event) -> None:
        self.name, self.barrier, self.tracer, self.after, self.done = name, barrier, tracer, after, done

    def act(self, observation: Any) -> Any:
        with self.tracer.span("node", node="plan"):
            self.barrier.wait(timeout=10)  # only returns if both agents are deciding at the same time
            if self.after is not None:
                self.after.wait(timeout=10)  # finish after the partner, to see the trace keep agent order
            self.tracer.event("plan", by=self.name)
        self.done.set()
        return WAIT


class Computer(MemberBase):
    """A scripted baseline: `MemberBase`'s `decides_concurrently` is False, so it decides on the runner's thread."""

    def __init__(self, tracer: HeldTracer) -> None:
        self.tracer, self.thread = tracer, ""

    def act(self, observation: Any) -> Any:
        self.thread = threading.current_thread().name
        self.tracer.event("plan", by="computer")
        return WAIT


def _team() -> tuple[Tracer, dict[str, HeldTracer], dict[str, Any]]:
    tracer = Tracer(None)
    tracers = {a: HeldTracer(tracer.bind(agent=a)) for a in ("alice", "bob", "carol")}
    barrier, bob_done, alice_done = threading.Barrier(2), threading.Event(), threading.Event()
    members = {"alice": Waiter("alice", barrier, tracers["alice"], bob_done, alice_done),
               "bob": Waiter("bob", barrier, tracers["bob"], None, bob_done),
               "carol": Computer(tracers["carol"])}
    return tracer, tracers, members


def test_waiting_agents_decide_together_and_their_events_are_written_in_agent_order() -> None:
    tracer, tracers, members = _team()
    decider = JointDecider(members, tracers)  # type: ignore[arg-type]
    try:
        actions = decider.decide({a: None for a in members}, ["alice", "bob", "carol"])  # type: ignore[misc]
    finally:
        decider.close()
    assert list(actions) == ["alice", "bob", "carol"]
    written = [(e["agent"], e["type"]) for e in tracer.events]
    assert written == [("alice", "node_start"), ("alice", "plan"), ("alice", "node_end"),
                       ("bob", "node_start"), ("bob", "plan"), ("bob", "node_end"), ("carol", "plan")]
    times = {e["agent"]: e["t"] for e in tracer.events if e["type"] == "plan"}
    assert times["bob"] <= times["alice"]  # each event keeps the moment it happened
    assert members["carol"].thread == threading.current_thread().name


def test_an_agents_error_is_raised_after_every_agents_events_are_written() -> None:
    tracer, tracers, members = _team()
    members["carol"].act = lambda observation: (_ for _ in ()).throw(RuntimeError("no plan"))
    decider = JointDecider(members, tracers)  # type: ignore[arg-type]
    try:
        with pytest.raises(RuntimeError, match="no plan"):
            decider.decide({a: None for a in members}, ["alice", "bob", "carol"])  # type: ignore[misc]
    finally:
        decider.close()
    assert [e["agent"] for e in tracer.events if e["type"] == "plan"] == ["alice", "bob"]
    tracers["alice"].event("after")  # released: writes through again
    assert tracer.events[-1]["type"] == "after"
