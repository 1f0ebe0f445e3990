"""A check for node authors: every channel a step changed is in that step's checkpoint.

A node that changes a channel (the belief, the running plan, a family's record) must return it; one that changes
it in place and returns nothing leaves the checkpoint holding the old value, so the next step, a replay or a
fork starts without the change. `check_saved_channels(agent)` makes a `GraphAgent` compare, after each step,
every channel's checkpoint with its live value and raise `ChannelNotReturned` on the first difference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coopgraph.runtime.graph_agent import GraphAgent


class ChannelNotReturned(AssertionError):
    """A step changed a channel that no node of the step returned, so its checkpoint is stale."""


def check_saved_channels(agent: GraphAgent) -> GraphAgent:
    """`agent`, whose every step is followed by the comparison (for tests: it reads the checkpoint each step)."""
    act = agent.act

    def checked_act(observation: Any) -> Any:
        action = act(observation)
        saved = agent.graph.get_state(agent.config).values
        live = agent._state
        stale = [name for name in agent.channels if comparable(saved.get(name)) != comparable(live.get(name))]
        if stale:
            raise ChannelNotReturned(f"{agent.name} at {observation.time}: channel(s) {', '.join(stale)} changed "
                                     "but no node of the step returned them")
        return action

    agent.act = checked_act  # type: ignore[method-assign]
    return agent


def comparable(value: Any, _seen: frozenset[int] = frozenset()) -> Any:
    """`value` as plain nested data that compares by content: objects as their attributes, sets sorted, and an
    object met again inside itself as a marker (agent state is a graph, not a tree)."""
    if value is None or isinstance(value, str | int | float | bool | bytes):
        return value
    if id(value) in _seen:
        return ("<cycle>", type(value).__name__)
    seen = _seen | {id(value)}
    if isinstance(value, dict):
        return ("dict", sorted(((repr(k), comparable(v, seen)) for k, v in value.items()), key=lambda kv: kv[0]))
    if isinstance(value, set | frozenset):
        return ("set", sorted(repr(comparable(item, seen)) for item in value))
    if isinstance(value, list | tuple):
        return (type(value).__name__, [comparable(item, seen) for item in value])
    state = getattr(value, "__dict__", None)
    if state is None and hasattr(value, "__slots__"):
        state = {slot: getattr(value, slot, None) for slot in value.__slots__}
    if state is None:
        return repr(value)
    return (type(value).__name__, comparable(dict(state), seen))
