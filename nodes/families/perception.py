"""Perception: fold each step's observation and the partners' messages into memory, every step."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import Sightings
from coopgraph.envs.protocol import ObjectInfo, Observation
from coopgraph.memory.episodic import quoted
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.registry import node
from coopgraph.nodes.state import BELIEF, EPISODIC, VECTOR_LOG, key

NEW_MESSAGES = key("new_messages", int, family="perception", doc="partner messages received this step")


class PerceiveParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    read_messages: bool = Field(default=False, description="also fold the facts partners' messages state into the "
                                "belief with the world's rule-based reader: a small-model aid no paper has, so only "
                                "variants that say so turn it on; the published methods leave messages to the LLM, "
                                "in its dialogue")
    store_vectors: bool = Field(default=True, description="also index sightings and messages in the vector store")


def _object_line(obj: ObjectInfo, room: str) -> str:
    where = f"inside ({obj.inside})" if obj.inside is not None else f"on ({obj.on})" if obj.on is not None else ""
    return f"saw <{obj.name}> ({obj.id}) {where} in {room}".replace("  ", " ")


def _new_sightings(obs: Sightings, step: int, indexed: set[str]) -> list[dict[str, Any]]:
    """Vector-store items for what is new or moved in view, not every sighting of every step."""
    room = obs.room
    items = []
    for obj in obs.visible_objects:
        line = _object_line(obj, room or "?")
        if line not in indexed:
            indexed.add(line)
            items.append({"text": line, "kind": "observation", "step": step, "room": room,
                          "object_ids": [obj.id]})
    return items


@node("perception.perceive", reads=("observation",), writes=(NEW_MESSAGES, BELIEF, EPISODIC, VECTOR_LOG),
      params=PerceiveParams)
def perceive(state: dict[str, Any], ctx: NodeContext[PerceiveParams]) -> dict[str, Any]:
    """Update the belief from the observation, record messages in dialogue memory and the vector store.

    Messages are data: their text goes into dialogue history (for the LLM), and with `read_messages` their facts
    into the belief through the environment's reader; nothing in them is executed. Sightings are indexed in worlds
    whose observations list visible objects in rooms (the `Sightings` capability); messages in every world.
    """
    obs: Observation = state["observation"]
    memory = ctx.memory
    ctx.belief.update(obs)
    received = [m for m in obs.messages if m.sender != obs.agent_id]
    for message in received:
        memory.episodic.add_message(message.sender, message.text, message.step)
        if ctx.params.read_messages and ctx.resources.kit is not None:
            ctx.resources.kit.read_message(ctx.belief, message)
    update: dict[str, Any] = {NEW_MESSAGES: len(received), BELIEF: ctx.belief, EPISODIC: memory.episodic}
    if ctx.params.store_vectors and memory.vector is not None:
        items: list[dict[str, Any]] = []
        if isinstance(obs, Sightings):
            items = _new_sightings(obs, obs.time, memory.vector_log.keys)
        items += [{"text": f"{m.sender} said: {quoted(m.text)}", "kind": "message", "step": m.step, "source": "told"}
                  for m in received]
        if items:
            memory.remember(items)  # one write per step
            update[VECTOR_LOG] = memory.vector_log
    return update
