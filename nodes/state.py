"""The state an agent graph carries, declared key by key by the nodes that write it.

There is no central state type. A node family declares each key its nodes write as a `StateKey` (`key(...)` for
a per-step key, `channel(...)` for one that outlives the step) next to its code, and names it in a node's
`writes`; the compiler assembles each spec's LangGraph state schema from the keys of the nodes it wires plus the
runner's (`spec_keys` in `coopgraph.graphs.state_schema`). A key several nodes add to takes a reducer that folds
each write into the value (`decisions` adds up); every other key keeps the last value written.

Per-step keys start afresh every step (the runner writes their start values, past any reducer). Channels are
what an agent carries from one step to the next (its belief, dialogue and action history, the running plan with
the skill book that executes it, each method's record such as a CaPo discussion): a checkpointer saves them
once per step, so any step of any agent can be restored, replayed or forked. A node that changes a channel
returns it (see `docs/nodes.md`, "Channels are returned").
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from coopgraph.envs.protocol import Observation
from coopgraph.memory.agent_memory import AgentMemory, RunningPlan, VectorLog

if TYPE_CHECKING:
    from coopgraph.memory.vector_store import VectorMemory

Reducer = Callable[[Any, Any], Any]


class StateKey(str):
    """A state key's name that also carries its declaration: its type, its reducer (None: the last write
    wins), its start value each step, and for a channel, that it outlives the step and how it is first made.

    It is a `str` so nodes index state and return updates with it exactly as with the plain name; it pickles
    as the plain name, so checkpoints never hold declarations."""

    type: Any
    reducer: Reducer | None
    start: Any
    persists: bool
    factory: Callable[[], Any] | None
    family: str
    doc: str

    def __new__(cls, name: str, type_: Any = Any, *, reducer: Reducer | None = None, start: Any = None,
                persists: bool = False, factory: Callable[[], Any] | None = None, family: str = "",
                doc: str = "") -> StateKey:
        made = super().__new__(cls, name)
        made.type, made.reducer, made.start, made.persists = type_, reducer, start, persists
        made.factory, made.family, made.doc = factory, family, doc
        return made

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return str, (str(self),)

    @property
    def name(self) -> str:
        return str(self)

    def same_declaration(self, other: StateKey) -> bool:
        """Whether two declarations of one key agree: the same type (`Any` defers to a typed one) and reducer."""
        typed = self.type is not Any and other.type is not Any
        return not (typed and self.type != other.type) and self.reducer is other.reducer \
            and self.persists == other.persists

    def describe(self) -> str:
        """The declaration in a line, for error messages and the generated node docs."""
        kind = "channel" if self.persists else "per-step key"
        reducer = f", reducer {getattr(self.reducer, '__name__', repr(self.reducer))}" if self.reducer else ""
        return f"{kind} {self.name!r}: {type_name(self.type)}{reducer}"


def type_name(type_: Any) -> str:
    """A type as written in code (`str | None`, `list[Any]`), not its repr's `<class ...>` or module path."""
    if isinstance(type_, type) and not getattr(type_, "__args__", None):
        return type_.__name__
    return re.sub(r"\b(?:\w+\.)+(\w+)", r"\1", str(type_))


def key(name: str, type_: Any, *, reducer: Reducer | None = None, start: Any = None, family: str = "",
        doc: str = "") -> StateKey:
    """Declare a per-step key: what one step's nodes hand each other, back at `start` every step."""
    return StateKey(name, type_, reducer=reducer, start=start, family=family, doc=doc)


CHANNELS: dict[str, StateKey] = {}


def channel(name: str, type_: Any, factory: Callable[[], Any] | None, doc: str, *, family: str) -> StateKey:
    """Declare a channel a node family keeps across steps and register it, so the runner can seed it with
    `factory` (None: the runner seeds it from the world's kit or the agent's settings) and a memory view can
    make it on first use; nodes that change it name it in `writes` and return it."""
    existing = CHANNELS.get(name)
    if existing is not None and existing.family != family:
        raise ValueError(f"channel {name!r} is already registered by {existing.family}")
    declared = StateKey(name, type_, persists=True, factory=factory, family=family, doc=doc)
    CHANNELS[name] = declared
    return declared


# The runner's keys: written before the first node of every step.
STEP = key("step", int, family="runner", doc="the world's clock this step")
OBSERVATION = key("observation", Observation, family="runner", doc="the environment's typed observation")
DECISIONS = key("decisions", int, reducer=operator.add, start=0, family="runner",
                doc="decisions taken during this step (bounded, so a step always ends); a node adds 1 per decision")
RUNNER_KEYS: dict[str, StateKey] = {k.name: k for k in (STEP, OBSERVATION, DECISIONS)}

# The core channels every agent graph carries; seeded by the runner from the kit and the agent's settings.
BELIEF = channel("belief", Any, None, "the world's belief (semantic memory)", family="state")
EPISODIC = channel("episodic", Any, None, "recent actions and dialogue (episodic memory)", family="state")
PLAN = channel("plan", RunningPlan, None, "the running plan and the skill book executing it (procedural memory)",
               family="state")
VECTOR_LOG = channel("vector_log", VectorLog, VectorLog, "what went into the vector store", family="state")
CORE_CHANNELS: tuple[StateKey, ...] = (BELIEF, EPISODIC, PLAN, VECTOR_LOG)


def step_start(keys: Mapping[str, StateKey], step: int, observation: Any) -> dict[str, Any]:
    """The runner's input for one step of a graph whose schema has `keys`: this step's observation and every
    per-step key back at its start value (a key with a reducer is overwritten, not folded)."""
    from langgraph.types import Overwrite

    start: dict[str, Any] = {}
    for name, declared in keys.items():
        if declared.persists:
            continue
        value = declared.start.copy() if isinstance(declared.start, dict | list) else declared.start
        start[name] = Overwrite(value) if declared.reducer is not None else value
    start.update(step=step, observation=observation)
    return start


def memory_view(state: Mapping[str, Any], vector: VectorMemory | None = None) -> AgentMemory:
    """The agent's memory over one step's channels (the objects themselves: a node that changes one returns
    it); a family channel missing from the state is made from its registered factory on first use."""
    running: RunningPlan = state[PLAN]
    family = {name: state[name] for name in CHANNELS if name not in CORE_CHANNELS and name in state}
    return AgentMemory(semantic=state[BELIEF], episodic=state[EPISODIC], procedural=running.skillbook, vector=vector,
                       running=running, channels=family, vector_log=state.get(VECTOR_LOG) or VectorLog(),
                       factories={name: c.factory for name, c in CHANNELS.items()})
