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
    # --- CaPo: meta-plan discussion and progress-adaptive re-planning
    meta_plan: str | None
    feedback: list[str]
    consensus: bool
    progress_event: str | None
    discussion_round: int
    discussion_turn: str | None  # design / evaluate / None (act): whose move the discussion expects now
    utterance: str | None  # a discussion message to send this step (kept apart from `message`, CoELA's draft)
    progress_report: str | None  # the part of progress_event this agent found or did itself
    # --- REVECA: relevance, K candidate plans, scenario-based validation
    candidates: list[Any]
    validation: str | None
    question: str | None


STATE_KEYS: frozenset[str] = frozenset(AgentState.__annotations__)
