"""The environment-agnostic contract between environments and agents.

Agent code (baselines today, LLM graph nodes later) imports only these types: what an agent observes,
what it may do, the high-level actions it chooses among, and the small protocols (skill book,
affordances, team member) through which it acts. Nothing here knows a concrete environment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Point = tuple[float, float]

_ACTION_HEAD = re.compile(r"^\s*\[(?P<kind>[a-z_]+)\]\s*(?P<rest>.*)$", re.DOTALL)
_REFERENCE = re.compile(r"(?:<(?P<name>[^<>]*)>\s*)?\((?P<id>-?\d+)\)")


def action_kind(text: str | None) -> str | None:
    """The kind of an action or affordance written as text (`gograb` in `[gograb] <apple> (3)`), or None."""
    head = _ACTION_HEAD.match(text or "")
    return head["kind"] if head else None


class ObjectInfo(BaseModel):
    """One object as an agent perceives it: identity, place, relations and (for containers) open state."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    kind: Literal["item", "container", "surface"] = "item"
    room: str | None = None
    room_id: int | None = None
    position: Point | None = None
    inside: int | None = Field(default=None, description="id of the container holding this object")
    on: int | None = Field(default=None, description="id of the surface this object lies on")
    is_open: bool | None = Field(default=None, description="containers only: open or closed")
    held_by: str | None = Field(default=None, description="agent id holding this object")
    distance: float | None = Field(default=None, description="metres from the observing agent")

    @property
    def label(self) -> str:
        """The `<name> (id)` form used in prompts, action lists and messages."""
        return f"<{self.name}> ({self.id})"


class RoomInfo(BaseModel):
    """A room of the house: its id, name and footprint (metres)."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    center: Point
    size: Point

    @property
    def label(self) -> str:
        return f"<{self.name}> ({self.id})"


class PartnerInfo(BaseModel):
    """A teammate seen this step: where it stands and what it holds."""

    agent_id: str
    name: str
    room: str
    room_id: int
    position: Point
    holding: list[ObjectInfo] = Field(default_factory=list)


class Message(BaseModel):
    """A message one agent sent; partners receive it in the observation of the following step."""

    sender: str
    text: str
    step: int
    truncated: bool = False


class GoalPredicate(BaseModel):
    """One counted subgoal such as `ON(plate, kitchentable): 2`, bound to a target object id."""

    model_config = ConfigDict(frozen=True)

    relation: Literal["ON", "IN"]
    object_name: str
    target_id: int
    target_name: str
    count: int

    @property
    def text(self) -> str:
        return f"{self.relation}({self.object_name}, {self.target_name}): {self.count}"


class Observation(BaseModel):
    """Everything one agent perceives at one step; the only input a team member gets from the world."""

    agent_id: str
    agent_name: str
    step: int
    max_steps: int
    room: str
    room_id: int
    position: Point
    visible_objects: list[ObjectInfo] = Field(default_factory=list)
    holding: list[ObjectInfo] = Field(default_factory=list)
    partners: list[PartnerInfo] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    goal: list[GoalPredicate] = Field(default_factory=list)
    goal_text: str = ""
    rooms: list[RoomInfo] = Field(default_factory=list)
    last_action: str | None = None
    last_action_ok: bool = True
    last_action_reason: str = ""

    def visible(self, object_id: int) -> ObjectInfo | None:
        """The visible object with this id, or None."""
        for obj in self.visible_objects:
            if obj.id == object_id:
                return obj
        return None

    def held_ids(self) -> list[int]:
        return [obj.id for obj in self.holding]


class PrimitiveAction(BaseModel):
    """One primitive action for one step, e.g. `[walk] <kitchen> (56)`, `[put] <apple> (386) <fridge> (165)`.

    `target_id` is what the action is aimed at (room, container, surface, object); for `put` the held
    object is `object_id` and the destination is `target_id`; `send_message` carries `message`.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    target_id: int | None = None
    target_name: str | None = None
    object_id: int | None = None
    object_name: str | None = None
    message: str | None = None

    @property
    def text(self) -> str:
        parts = [f"[{self.kind}]"]
        if self.object_id is not None:
            parts.append(f"<{self.object_name or 'object'}> ({self.object_id})")
        if self.target_id is not None:
            parts.append(f"<{self.target_name or 'target'}> ({self.target_id})")
        if self.message is not None:
            parts.append(self.message)
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> PrimitiveAction:
        """Read the text form back; raises ValueError when it is not `[kind] ...`."""
        head = _ACTION_HEAD.match(text)
        if not head:
            raise ValueError(f"not an action: {text[:60]!r} (expected '[kind] <name> (id)')")
        kind, rest = head["kind"], head["rest"]
        if kind == "send_message":
            return cls(kind=kind, message=rest)
        refs = list(_REFERENCE.finditer(rest))
        if kind == "put" and len(refs) >= 2:
            return cls(
                kind=kind,
                object_id=int(refs[0]["id"]),
                object_name=refs[0]["name"],
                target_id=int(refs[1]["id"]),
                target_name=refs[1]["name"],
            )
        if refs:
            return cls(kind=kind, target_id=int(refs[0]["id"]), target_name=refs[0]["name"])
        return cls(kind=kind)



WAIT = PrimitiveAction(kind="wait")  # the idle action: what an agent sends when it has nothing to do

class Affordance(BaseModel):
    """A high-level action an agent may choose, e.g. `[gocheck] <fridge> (165)`; the skill book runs it."""

    model_config = ConfigDict(frozen=True)

    kind: str
    target_id: int | None = None
    target_name: str | None = None
    room_id: int | None = Field(default=None, description="room where the target is believed to be")
    room_name: str | None = None
    container_id: int | None = Field(default=None, description="gograb: closed container believed to hold it")
    object_ids: tuple[int, ...] = Field(default=(), description="goput: the held objects to put")
    message: str | None = None

    @property
    def text(self) -> str:
        if self.kind == "send_message":
            return "[send_message]" if self.message is None else f'[send_message] <"{self.message}">'
        if self.target_id is None:
            return f"[{self.kind}]"
        return f"[{self.kind}] <{self.target_name}> ({self.target_id})"


class SkillStatus(StrEnum):
    """How the execution of a high-level action stands after one call of the skill book."""

    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class SkillStep(BaseModel):
    """The skill book's answer: the next primitive action while running, else a final status and reason."""

    status: SkillStatus
    action: PrimitiveAction | None = None
    reason: str = ""


@runtime_checkable
class SkillBook(Protocol):
    """Procedural memory: turns one high-level action into primitive actions, one step at a time.

    Pass the same Affordance object on every step while it runs; a different object starts afresh.
    """

    def reset(self) -> None: ...

    def next_action(self, plan: Affordance, observation: Observation) -> SkillStep: ...


@runtime_checkable
class Affordances(Protocol):
    """Lists the high-level actions available from an agent's belief (the planner's multiple choice)."""

    def available(self, belief: Any, message: str | None = None) -> list[Affordance]: ...


@runtime_checkable
class TeamMember(Protocol):
    """What the episode runner talks to: one decentralised agent choosing a primitive action per step."""

    name: str

    def reset(self, agent_id: str, env_info: dict[str, Any], seed: int) -> None: ...

    def act(self, observation: Observation) -> PrimitiveAction: ...


@dataclass
class AgentKit:
    """What a learning or LLM agent takes from its environment: a belief to keep, its action list, its skills.

    `read_message` folds the facts a partner's message states (object whereabouts, checked containers,
    intentions) into the belief; it only records data and never turns a message into an action.
    `prompt_env` names the environment's prompt templates (`cwah` serves C-WAH and Noisy-C-WAH).
    `news`, where the environment has message templates, makes a reporter for a belief (C-WAH: MHP's
    `NewsReporter`), which `communication.report_news` uses to keep partners informed without an LLM.
    """

    belief: Any
    affordances: Affordances
    skillbook: SkillBook
    read_message: Callable[[Any, Message], None]
    prompt_env: str
    news: Callable[[Any], Any] | None = None
