"""The typed state every agent graph passes between its nodes.

One shared schema (rather than one per method) is what lets CoELA, CaPo and REVECA reuse the same
nodes: a node declares which of these keys it reads and writes, and the validator checks wirings
against those declarations.
"""

from __future__ import annotations

from typing import Any, TypedDict


class AgentState(TypedDict, total=False):
    """Keys one graph invocation (one agent step) may read or write; all optional, last write wins.

    What must outlive a step (belief, dialogue, the running plan) lives in the agent's memory instead.
    """

    step: int
    observation: Any  # the environment's typed observation for this step
    new_messages: int  # partner messages received this step
    facts: dict[str, Any]  # template variables gathered from memory
    description: str
    message: str | None  # a drafted message, offered as the [send_message] action
    actions: list[str]  # the action list as the LLM sees it
    options: list[Any]  # the same actions as environment objects (Affordance)
    choice: str | None
    choice_index: int | None
    reasoning: str
    invalid: bool
    decisions: int  # decisions taken during this step (bounded, so a step always ends)
    action: Any  # the primitive action to send this step, or None to idle
    plan_status: str  # running / done / failed / interrupted / none
    notes: dict[str, Any]


STATE_KEYS: frozenset[str] = frozenset(AgentState.__annotations__)
