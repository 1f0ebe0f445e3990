"""Deciding one step's actions for all ready agents at once, with the trace written as if they took turns.

Agents acting in the same step decide from their own observations only, so asking them together changes no
decision; it only lets their model requests be in flight together. Each agent's events are held while it decides
on its thread and written afterwards in agent order, so a trace reads the same whichever agent's model answered
first (each event keeps the time it happened).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any

from coopgraph.envs.protocol import Observation, PrimitiveAction, TeamMember
from coopgraph.record.trace_file import BoundTracer, timed_span


class HeldTracer:
    """One agent's tracer: writes through, or, between `hold` and `release`, keeps its events to write later."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._held: list[tuple[str, dict[str, Any]]] | None = None

    def bind(self, **context: Any) -> BoundTracer:
        return BoundTracer(self, context)  # type: ignore[arg-type]  # BoundTracer needs only event and span

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        if self._held is None:
            return self.inner.event(kind, **fields)
        fields = {"t": round(time.time(), 4), **fields}  # the moment it happened, not the moment it is written
        self._held.append((kind, fields))
        return {"type": kind, **fields}

    def span(self, kind: str, **fields: Any) -> AbstractContextManager[dict[str, Any]]:
        """As `Tracer.span`, through `event` so that held spans are held too."""
        return timed_span(self.event, kind, **fields)

    def hold(self) -> None:
        self._held = []

    def release(self) -> None:
        held, self._held = self._held or [], None
        for kind, fields in held:
            self.inner.event(kind, **fields)


class JointDecider:
    """Asks every ready agent of a step for its action, concurrently for those that wait on a model
    (`TeamMember.decides_concurrently`: graph agents over a server) when more than one of them is ready; the rest
    (scripted partners, which only compute) decide in turn on the runner's thread."""

    def __init__(self, members: dict[str, TeamMember], tracers: dict[str, HeldTracer]) -> None:
        self.members = members
        self.tracers = tracers
        waiting = [agent for agent, member in members.items() if member.decides_concurrently]
        self._threads = ThreadPoolExecutor(max_workers=len(waiting), thread_name_prefix="agent") \
            if len(waiting) > 1 else None

    def decide(self, observations: dict[str, Observation], ready: list[str]) -> dict[str, PrimitiveAction]:
        """Actions of the `ready` agents, in their order; an agent's error is raised after every trace is written."""
        threaded = [agent for agent in ready if self.members[agent].decides_concurrently]
        if self._threads is None or len(threaded) < 2:
            return {agent: self.members[agent].act(observations[agent]) for agent in ready}
        for agent in ready:
            if agent in self.tracers:
                self.tracers[agent].hold()
        futures = {agent: self._threads.submit(self.members[agent].act, observations[agent]) for agent in threaded}
        actions: dict[str, PrimitiveAction] = {}
        failure: BaseException | None = None
        for agent in ready:  # the others decide here meanwhile, in agent order
            try:
                actions[agent] = futures[agent].result() if agent in futures else \
                    self.members[agent].act(observations[agent])
            except BaseException as exc:  # noqa: BLE001 - raised below, once every agent's events are written
                failure = failure or exc
        for agent in ready:
            if agent in self.tracers:
                self.tracers[agent].release()
        if failure is not None:
            raise failure
        return actions

    def close(self) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=True)
