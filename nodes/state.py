"""The state an agent graph carries: per-step keys, and channels that outlive a step.

Per-step keys (`AgentState`) are what nodes hand each other within one environment step; the runner resets
them at every step. Channels are what an agent carries from one step to the next (its belief, its dialogue
and action history, the running plan with the skill book that executes it, and each method's own record such
as a CaPo discussion). Each node family registers its channels next to its code (`channel(...)`); a compiled
graph holds the core channels plus those of the families it wires, as LangGraph channels that a checkpointer
saves once per step, so any step of any agent can be restored, replayed or forked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from coopgraph.memory.agent_memory import AgentMemory, RunningPlan, VectorLog

if TYPE_CHECKING:
    from coopgraph.memory.vector_store import VectorMemory


class AgentState(TypedDict, total=False):
    """Keys one step's nodes pass each other; all optional, last write wins, reset by the runner every step."""

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
    # --- CaPo: meta-plan discussion and progress-adaptive re-planning (this step's view of the `capo` channel)
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


#: Keys the runner writes before the first node of every step.
RUNNER_KEYS: frozenset[str] = frozenset({"step", "observation", "decisions"})

#: Values per-step keys start each step from (absent keys read as None through `state.get`).
_STEP_START: dict[str, Any] = {"decisions": 0, "facts": {}, "notes": {}, "reasoning": ""}


def step_start(step: int, observation: Any) -> dict[str, Any]:
    """The runner's input for one step: this step's observation, every per-step key back at its start value."""
    start: dict[str, Any] = {key: None for key in AgentState.__annotations__}
    start.update({key: (dict(value) if isinstance(value, dict) else value) for key, value in _STEP_START.items()})
    start.update(step=step, observation=observation)
    return start


@dataclass(frozen=True)
class Channel:
    """A piece of agent state that outlives a step: a LangGraph channel saved with every checkpoint."""

    name: str
    family: str  # the node family (module) that owns it
    type: Any
    factory: Callable[[], Any] | None  # None: the runner seeds it from the world's kit or the agent's settings
    doc: str


CHANNELS: dict[str, Channel] = {}


def channel(name: str, type_: Any, factory: Callable[[], Any] | None, doc: str, *, family: str) -> str:
    """Register a channel a node family keeps across steps; nodes that use it name it in `reads`/`writes`."""
    existing = CHANNELS.get(name)
    if existing is not None and existing.family != family:
        raise ValueError(f"channel {name!r} is already registered by {existing.family}")
    if name in AgentState.__annotations__:
        raise ValueError(f"channel {name!r} clashes with the per-step key of that name")
    CHANNELS[name] = Channel(name, family, type_, factory, doc)
    return name


# The core channels every agent graph carries; seeded by the runner from the kit and the agent's settings.
BELIEF = channel("belief", Any, None, "the world's belief (semantic memory)", family="state")
EPISODIC = channel("episodic", Any, None, "recent actions and dialogue (episodic memory)", family="state")
PLAN = channel("plan", RunningPlan, None, "the running plan and the skill book executing it (procedural memory)",
               family="state")
VECTOR_LOG = channel("vector_log", VectorLog, VectorLog, "what went into the vector store", family="state")
CORE_CHANNELS: tuple[str, ...] = (BELIEF, EPISODIC, PLAN, VECTOR_LOG)

STATE_KEYS: frozenset[str] = frozenset(AgentState.__annotations__)


def memory_view(state: Mapping[str, Any], vector: VectorMemory | None = None) -> AgentMemory:
    """The agent's memory over one step's channels (the objects themselves: what a node changes, the step
    commits); a family channel missing from the state is made from its registered factory on first use."""
    running: RunningPlan = state[PLAN]
    family = {name: state[name] for name in CHANNELS if name not in CORE_CHANNELS and name in state}
    return AgentMemory(semantic=state[BELIEF], episodic=state[EPISODIC], procedural=running.skillbook, vector=vector,
                       running=running, channels=family, vector_log=state.get(VECTOR_LOG) or VectorLog(),
                       factories={name: c.factory for name, c in CHANNELS.items()})
