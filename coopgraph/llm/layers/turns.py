"""Taking turns at the machine's cores: each request waits for the profile's turn (`server.compute_turn`).

A team's members ask separate embedded servers so that each keeps its own prompt prefix cached; on two cores the
servers must still compute one at a time, or two prompts would each get half the cores and both spin at barriers.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from coopgraph.llm.interface import ChatLM, ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper


class TakeTurns(Wrapper):
    """Sends each request while holding `turn()`."""

    def __init__(self, inner: ChatLM, turn: Callable[[], AbstractContextManager[None]]) -> None:
        super().__init__(inner)
        self.turn = turn

    def complete(self, request: ChatRequest) -> Completion:
        with self.turn():
            return self.inner.complete(request)
