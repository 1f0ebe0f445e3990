"""What one primitive action does to the world. Invalid actions change nothing and say why.

Every action takes one step whether it succeeds or not; the caller applies the agents' actions one
after another in a seeded order, so simultaneous conflicts (two grabs of one apple) resolve
deterministically: the first wins, the second fails with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from coopgraph.envs.cwah.config import CWAHConfig
from coopgraph.envs.cwah.layout import euclid
from coopgraph.envs.cwah.state import AgentState, ObjectState, WorldState
from coopgraph.envs.protocol import Message, PrimitiveAction

ACTION_KINDS: tuple[str, ...] = ("walk", "open", "close", "grab", "put", "send_message", "wait")


@dataclass
class Outcome:
    """The result of one agent's action this step."""

    ok: bool
    reason: str = ""
    travelled: float = 0.0
    message: Message | None = None
    chars_cut: int = 0


def _fail(reason: str) -> Outcome:
    return Outcome(ok=False, reason=reason)


def _reachable(
    world: WorldState, agent: AgentState, target_id: int | None, config: CWAHConfig, kinds: tuple[str, ...]
) -> ObjectState | Outcome:
    """The target object if the agent can interact with it now, else a failed Outcome explaining why."""
    if target_id is None:
        return _fail("the action needs a target id")
    obj = world.objects.get(target_id)
    if obj is None:
        return _fail(f"unknown object id {target_id}")
    if obj.kind not in kinds:
        return _fail(f"<{obj.name}> ({obj.id}) is a {obj.kind}; this action needs a {' or '.join(kinds)}")
    if not world.visible_to(obj, agent):
        return _fail(f"<{obj.name}> ({obj.id}) is not visible from here")
    if euclid(agent.position, obj.position) > config.reach + 1e-9:
        return _fail(
            f"<{obj.name}> ({obj.id}) is too far ({euclid(agent.position, obj.position):.1f} m); "
            f"walk closer first"
        )
    return obj


def _walk(world: WorldState, agent: AgentState, action: PrimitiveAction, config: CWAHConfig) -> Outcome:
    target = action.target_id
    if target is None:
        return _fail("walk needs a room or object id")
    if target in world.floor.rooms:
        goal, goal_room = world.floor.room_center(target), target
    else:
        obj = world.objects.get(target)
        if obj is None:
            return _fail(f"unknown room or object id {target}")
        if not world.visible_to(obj, agent):
            return _fail(f"<{obj.name}> ({obj.id}) is not visible from here; walk to its room first")
        goal, goal_room = obj.position, obj.room
    if agent.room == goal_room and euclid(agent.position, goal) < 1e-6:
        return Outcome(ok=True, reason="already there")
    position, room, walked = world.floor.advance(
        agent.position, agent.room, goal, goal_room, config.walk_speed
    )
    world.move_agent(agent, position, room)
    agent.travel += walked
    return Outcome(ok=True, travelled=walked)


def _open_or_close(
    world: WorldState, agent: AgentState, action: PrimitiveAction, config: CWAHConfig
) -> Outcome:
    found = _reachable(world, agent, action.target_id, config, ("container",))
    if isinstance(found, Outcome):
        return found
    want_open = action.kind == "open"
    if found.is_open == want_open:
        return _fail(f"<{found.name}> ({found.id}) is already {'open' if want_open else 'closed'}")
    found.is_open = want_open
    return Outcome(ok=True)


def _grab(world: WorldState, agent: AgentState, action: PrimitiveAction, config: CWAHConfig) -> Outcome:
    if action.target_id is not None and action.target_id in agent.holding:
        return _fail(f"already holding object {action.target_id}")
    found = _reachable(world, agent, action.target_id, config, ("item",))
    if isinstance(found, Outcome):
        return found
    if len(agent.holding) >= config.hands:
        return _fail(f"both hands are full ({len(agent.holding)} objects held); put something first")
    found.held_by, found.on, found.inside = agent.id, None, None
    found.position, found.room = agent.position, agent.room
    agent.holding.append(found.id)
    return Outcome(ok=True)


def _put(world: WorldState, agent: AgentState, action: PrimitiveAction, config: CWAHConfig) -> Outcome:
    held_id = action.object_id
    if held_id is None and len(agent.holding) == 1:
        held_id = agent.holding[0]
    if held_id is None or held_id not in agent.holding:
        return _fail(
            f"not holding object {held_id}" if held_id is not None else "put needs the held object's id"
        )
    found = _reachable(world, agent, action.target_id, config, ("surface", "container"))
    if isinstance(found, Outcome):
        return found
    if found.kind == "container" and not found.is_open:
        return _fail(f"<{found.name}> ({found.id}) is closed; open it first")
    held = world.objects[held_id]
    agent.holding.remove(held_id)
    held.held_by = None
    held.on, held.inside = (found.id, None) if found.kind == "surface" else (None, found.id)
    held.position, held.room = found.position, found.room
    return Outcome(ok=True)


def _send(agent: AgentState, action: PrimitiveAction, config: CWAHConfig, step: int) -> Outcome:
    text = action.message or ""
    if not text.strip():
        return _fail("empty message")
    cut = max(0, len(text) - config.max_message_chars)
    sent = text[: config.max_message_chars]
    agent.messages_sent += 1
    agent.characters_sent += len(sent)
    reason = f"message cut from {len(text)} to {len(sent)} characters" if cut else ""
    return Outcome(
        ok=True,
        reason=reason,
        chars_cut=cut,
        message=Message(sender=agent.id, text=sent, step=step, truncated=bool(cut), to=action.recipient),
    )


def apply_action(
    world: WorldState, agent_id: str, action: PrimitiveAction, config: CWAHConfig, step: int
) -> Outcome:
    """Apply one agent's primitive action; never raises for a bad action, the step is simply spent."""
    agent = world.agents[agent_id]
    if action.kind == "walk":
        outcome = _walk(world, agent, action, config)
    elif action.kind in ("open", "close"):
        outcome = _open_or_close(world, agent, action, config)
    elif action.kind == "grab":
        outcome = _grab(world, agent, action, config)
    elif action.kind == "put":
        outcome = _put(world, agent, action, config)
    elif action.kind == "send_message" and action.recipient is not None and (
            action.recipient == agent_id or action.recipient not in world.agents):
        outcome = _fail(f"no partner {action.recipient!r} to address; partners: "
                        f"{', '.join(a for a in world.agents if a != agent_id) or '(none)'}")
    elif action.kind == "send_message":
        outcome = _send(agent, action, config, step)
    elif action.kind == "wait":
        outcome = Outcome(ok=True)
    else:
        outcome = _fail(f"unknown action kind {action.kind!r}; valid: {', '.join(ACTION_KINDS)}")
    if not outcome.ok:
        agent.invalid_actions += 1
    return outcome
