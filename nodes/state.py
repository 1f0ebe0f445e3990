"""The typed state every agent graph passes between its nodes.

One shared schema (rather than one per method) is what lets CoELA, CaPo and REVECA reuse the same
nodes: a node declares which of these keys it reads and writes, and the validator checks wirings
against those declarations.
"""

from __future__ import annotations

from typing import Any, TypedDict


class AgentState(TypedDict, total=False):
    """Keys a decision round may read or write; all optional, last write wins."""

    step: int
    observation: Any
    facts: dict[str, Any]
    description: str
    actions: list[str]
    choice: str | None
    choice_index: int | None
    reasoning: str
    invalid: bool
    message: str | None
    plan: dict[str, Any]
    notes: dict[str, Any]


STATE_KEYS: frozenset[str] = frozenset(AgentState.__annotations__)
