"""Perception: fold each step's observation and the partners' messages into memory, every step."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.registry import node


class PerceiveParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    read_messages: bool = True  # fold facts stated in partners' messages into the belief
    store_vectors: bool = True  # also index sightings and messages in the vector store


def _object_line(obj: Any, room: str) -> str:
    where = f"inside ({obj.inside})" if obj.inside is not None else f"on ({obj.on})" if obj.on is not None else ""
    return f"saw <{obj.name}> ({obj.id}) {where} in {room}".replace("  ", " ")


@node("perception.perceive", reads=("observation",), writes=("new_messages",), params=PerceiveParams)
def perceive(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Update the belief from the observation, record messages in dialogue memory and the vector store.

    Messages are data: their facts go into the belief through the environment's reader, their text
    into dialogue history; nothing in them is executed.
    """
    obs = state["observation"]
    memory = ctx.memory
    memory.semantic.update(obs)
    received = [m for m in obs.messages if m.sender != obs.agent_id]
    for message in received:
        memory.episodic.add_message(message.sender, message.text, message.step)
        if ctx.params.read_messages and ctx.resources.kit is not None:
            ctx.resources.kit.read_message(memory.semantic, message)
    if ctx.params.store_vectors and memory.vector is not None:
        room = getattr(obs, "room", None)
        indexed = memory.notes.setdefault("indexed_sightings", set())
        items = []
        for obj in obs.visible_objects:
            line = _object_line(obj, room or "?")
            if line not in indexed:  # index what is new or moved, not every sighting of every step
                indexed.add(line)
                items.append({"text": line, "kind": "observation", "step": obs.step, "room": room,
                              "object_ids": [obj.id]})
        items += [{"text": f"{m.sender} said: {m.text}", "kind": "message", "step": m.step, "source": "told"}
                  for m in received]
        if items:
            memory.vector.add_many(items)  # one write per step
    return {"new_messages": len(received)}
