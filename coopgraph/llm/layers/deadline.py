"""The decision deadline: a node starts no new attempt at one decision after `decision_deadline_s`.

Each request is already bounded by the transport (timeout and retries); this bounds the attempts a node makes at
one decision, so a slow server costs a step its fallback rather than minutes.
"""

from __future__ import annotations

import time

from coopgraph.llm.interface import ChatLM
from coopgraph.llm.layers.base import Wrapper


class Deadline(Wrapper):
    """Answers `stop_reason` once a decision has run `decision_deadline_s` seconds (None: never)."""

    def __init__(self, inner: ChatLM, decision_deadline_s: float | None) -> None:
        super().__init__(inner)
        self.decision_deadline_s = decision_deadline_s

    def stop_reason(self, decision_started: float) -> str | None:
        deadline_s = self.decision_deadline_s
        if deadline_s is not None and time.monotonic() - decision_started >= deadline_s:
            return f"no more attempts: the decision's deadline ({deadline_s:g} s) has passed"
        return self.inner.stop_reason(decision_started)
