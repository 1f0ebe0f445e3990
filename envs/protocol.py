"""The environment-agnostic contract between environments and agents.

Agent code (baselines today, LLM graph nodes later) imports only these types: what an agent observes,
what it may do, the high-level actions it chooses among, and the small protocols (skill book,
affordances, team member and its defaults) through which it acts. Nothing here knows a concrete environment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from coopgraph.envs.capabilities import Belief

Point = tuple[float, float]
#: The one action kind every world shares: a message to partners (its cost is the world's to say).
SEND_MESSAGE = "send_message"
_RECIPIENT = re.compile(r"^@(?P<to>[A-Za-z0-9_]{1,40}):\s*")  # `[send_message] @bob: ...` is for bob only

_ACTION_HEAD = re.compile(r"^\s*\[(?P<kind>[a-z_]+)\]\s*(?P<rest>.*)$", re.DOTALL)
_REFERENCE = re.compile(r"(?:<(?P<name>[^<>]*)>\s*)?\((?P<id>-?\d+)\)")


def _label_pattern(space: str = r"\s*", ident: str = r"\d+", named: bool = True) -> str:
    """The `<name> (id)` pattern, with named groups (`name`, `id`) or plain ones (to hold several labels)."""
    name, number = (r"(?P<name>\w+)", rf"(?P<id>{ident})") if named else (r"(\w+)", rf"({ident})")
    return rf"<{name}>{space}\({number}\)"


#: The `<name> (id)` label every prompt, action list and message uses; the one definition of its pattern.
LABEL = re.compile(_label_pattern())
#: `LABEL` with plain groups (name, id), for building a pattern that holds several labels.
LABEL_PATTERN = _label_pattern(named=False)
#: Variant for text that code wrote with `label()` (MHP's templates, progress lines, plans): exactly one space
#: before the id, so a reader of such text does not take free text spaced otherwise for it. Plain groups.
STRICT_LABEL_PATTERN = _label_pattern(" ", named=False)
#: Variant for free-text messages: the id may be written signed, and relevance rates such a label too.
SIGNED_LABEL = re.compile(_label_pattern(ident=r"-?\d+"))


def label(name: str, object_id: int) -> str:
    """The `<name> (id)` form of a thing in prompts, action lists and messages."""
    return f"<{name}> ({object_id})"


def parse_labels(text: str) -> list[tuple[str, int]]:
    """Every `<name> (id)` label in `text`, in order, as (name, id)."""
    return [(m["name"], int(m["id"])) for m in LABEL.finditer(text or "")]


def action_kind(text: str | None) -> str | None:
    """The kind of an action or affordance written as text (`fetch` in `[fetch] <apple> (3)`), or None."""
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
    """A message one agent sent; partners receive it in the observation of the following step.

    It reaches every partner unless `to` names one (an addressed message reaches only that partner); either way
    it is one message, at the world's cost for one."""

    sender: str
    text: str
    step: int
    truncated: bool = False
    to: str | None = None

    @model_serializer(mode="wrap")
    def _drop_broadcast_to(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A message to everyone is stored as before `to` existed, so old traces and new ones compare equal."""
        data: dict[str, Any] = handler(self)
        if data.get("to") is None:
            data.pop("to", None)
        return data

    def reaches(self, agent_id: str) -> bool:
        """Whether `agent_id` receives this message: not its sender, and the addressee if there is one."""
        return agent_id != self.sender and (self.to is None or self.to == agent_id)


def message_to(message: Message | None) -> dict[str, str]:
    """The step info's `message_to` entry: the addressee of an addressed message; none for one to everyone."""
    return {"message_to": message.to} if message is not None and message.to is not None else {}


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


class AffordanceGroup(StrEnum):
    """What an affordance does, in words every world shares; nodes sort and filter on this, never on `kind`."""

    DELIVER = "deliver"  # bring what is carried to where the goal wants it
    FETCH = "fetch"  # go and pick something up
    INSPECT = "inspect"  # look inside or at one thing (open a container)
    EXPLORE = "explore"  # go somewhere to see what is there
    COMMUNICATE = "communicate"  # send a message
    WAIT = "wait"
    OTHER = "other"


class Observation(BaseModel):
    """The core every world's observation has: who is observing, the time in the world's own unit, what was said.

    `time` and `horizon` count the world's unit (C-WAH steps, TDW-MAT frames, Overcooked ticks);
    `last_action_cost` is what the agent's last primitive action cost in that unit, as the world reports it.
    Rooms, objects and held items belong to the worlds that have them (`HouseObservation`).
    """

    agent_id: str
    agent_name: str
    time: int = Field(ge=0, description="the world's clock at this observation, in its own unit")
    horizon: int = Field(ge=0, description="the clock's value at which the episode ends unsolved")
    messages: list[Message] = Field(default_factory=list)
    goal_text: str = ""
    last_action: str | None = None
    last_action_ok: bool = True
    last_action_reason: str = ""
    last_action_cost: int = Field(default=1, ge=0, description="time the last primitive action took")
    last_action_group: AffordanceGroup | None = Field(default=None, description="what the last primitive action "
                                                      "did, if it touched a thing: fetch (took it), inspect (opened "
                                                      "it), deliver (put it where the goal wants it)")
    ready: bool = Field(default=True, description="False while the agent's last action still runs (worlds "
                        "where actions take different times): the runner then sends WAIT without asking it")


class HouseObservation(Observation):
    """An observation in a world of rooms, objects, containers and carried items (C-WAH, TDW-MAT, toyhouse)."""

    room: str
    room_id: int
    position: Point
    visible_objects: list[ObjectInfo] = Field(default_factory=list)
    holding: list[ObjectInfo] = Field(default_factory=list)
    partners: list[PartnerInfo] = Field(default_factory=list)
    goal: list[GoalPredicate] = Field(default_factory=list)
    rooms: list[RoomInfo] = Field(default_factory=list)

    def visible(self, object_id: int) -> ObjectInfo | None:
        """The visible object with this id, or None."""
        for obj in self.visible_objects:
            if obj.id == object_id:
                return obj
        return None

    def held_ids(self) -> list[int]:
        return [obj.id for obj in self.holding]

    def to_deliver(self, plan: Affordance) -> list[ObjectInfo]:
        """The carried objects a delivery plan puts: the ones it names (`target_ids`), else every carried object
        a goal predicate wants at its target."""
        if plan.target_ids:
            held = {obj.id: obj for obj in self.holding}
            return [held[i] for i in plan.target_ids if i in held]
        wanted = {p.object_name for p in self.goal if p.target_id == plan.target_id}
        return [obj for obj in self.holding if obj.name in wanted]


class PrimitiveAction(BaseModel):
    """One primitive action for one step, e.g. `[walk] <kitchen> (56)`, or with two references
    `[place] <apple> (386) <fridge> (165)`.

    `target_id` is what the action is aimed at (room, container, surface, object); an action with two
    references (C-WAH's `put`) acts with `object_id` on `target_id`; `send_message` carries `message`, and
    `recipient` when it is for one partner only (text form `[send_message] @bob: ...`).
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    target_id: int | None = None
    target_name: str | None = None
    object_id: int | None = None
    object_name: str | None = None
    message: str | None = None
    recipient: str | None = None

    def __repr_args__(self) -> Any:
        """A broadcast prints as it did before `recipient` existed (behaviour traces compare these)."""
        return [(k, v) for k, v in super().__repr_args__() if not (k == "recipient" and v is None)]

    @property
    def text(self) -> str:
        parts = [f"[{self.kind}]"]
        if self.recipient is not None:
            parts.append(f"@{self.recipient}:")
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
        if kind == SEND_MESSAGE:
            addressed = _RECIPIENT.match(rest)
            if addressed:
                return cls(kind=kind, recipient=addressed["to"], message=rest[addressed.end():])
            return cls(kind=kind, message=rest)
        refs = list(_REFERENCE.finditer(rest))
        if len(refs) >= 2:
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


class PartnerClaim(BaseModel):
    """The world's view that a partner will likely do an affordance first, and why.

    `reason`: `nearer` (it stands nearer with a free hand), `announced` (it said it goes for the target),
    `nearby` (free-handed, it was lately where the target is).
    """

    model_config = ConfigDict(frozen=True)

    partner: str
    reason: Literal["nearer", "announced", "nearby"]

    @property
    def text(self) -> str:
        return {"nearer": f"{self.partner} nearer", "announced": f"{self.partner} going for it",
                "nearby": f"{self.partner} in that room"}[self.reason]


class Affordance(BaseModel):
    """A high-level action an agent may choose, e.g. `[inspect] <fridge> (165)`; the skill book runs it.

    `kind` and the text belong to the world. Everything a node may sort or filter on is a generic field the
    world fills in: `group`, `cost` (in the world's time unit), `distance` (in its unit of space), `value`
    (its own estimate of what the action is worth, where it has one), `claims`, `repeatable`, `target_ids`,
    `notes`, `surplus`, `detour` and `situation`.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    group: AffordanceGroup = AffordanceGroup.OTHER
    target_id: int | None = None
    target_name: str | None = None
    room_id: int | None = Field(default=None, description="worlds with rooms: where the target is believed to be")
    room_name: str | None = None
    via_id: int | None = Field(default=None, description="a thing to open or pass on the way to the target "
                               "(C-WAH: the closed container believed to hold it)")
    target_ids: tuple[int, ...] = Field(default=(), description="every id the action acts on (a delivery: the "
                                        "carried objects it puts)")
    message: str | None = None
    cost: float | None = Field(default=None, ge=0, description="the world's estimate of the time it takes")
    distance: float | None = Field(default=None, ge=0, description="how far the target is, in the world's unit")
    value: float | None = Field(default=None, description="the world's own estimate of what it brings "
                                "(C-WAH: expected needed objects a look finds); higher is better")
    claims: tuple[PartnerClaim, ...] = Field(default=(), description="partners likely to do it first, "
                                             "strongest reason first")
    repeatable: bool = Field(default=False, description="the same text may be due again right after it is done")
    surplus: bool = Field(default=False, description="what it fetches is already covered (held or claimed)")
    detour: bool = Field(default=False, description="worth doing on the way before delivering what is held")
    notes: tuple[str, ...] = Field(default=(), description="the world's own short notes for a planner")
    situation: str | None = Field(default=None, repr=False, description="the world's token for what the action "
                                  "acts on as it stands now (what the agent holds and its target's state); equal to "
                                  "the token a skill book reports in `SkillStep.unchanged` when nothing has changed "
                                  "since (left out of the printed form, which traces record)")

    @property
    def claimed_by(self) -> str | None:
        """The partner most likely to do this first, or None."""
        return self.claims[0].partner if self.claims else None

    @property
    def text(self) -> str:
        if self.message is not None:
            return f'[{self.kind}] <"{self.message}">'
        if self.target_id is None:
            return f"[{self.kind}]"
        return f"[{self.kind}] <{self.target_name}> ({self.target_id})"


def message_affordance(text: str | None) -> Affordance:
    """The `[send_message]` option every world offers: `text` is the drafted message (None: still to write)."""
    return Affordance(kind=SEND_MESSAGE, group=AffordanceGroup.COMMUNICATE, message=text)


class SkillStatus(StrEnum):
    """How the execution of a high-level action stands after one call of the skill book."""

    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class SkillStep(BaseModel):
    """The skill book's answer: the next primitive action while running, else a final status and reason, and
    (`unchanged`, typed so no planner reads the English reason) whether the action ended having done nothing."""

    status: SkillStatus
    action: PrimitiveAction | None = None
    reason: str = ""
    unchanged: str | None = Field(default=None, description="set when the action ended having changed nothing it "
                                  "was meant to change (an interact the world ignores, a load at a pot that is not "
                                  "ready): what it acted on as it stood, the world's `Affordance.situation` token; "
                                  "None when it had an effect or the world cannot tell")


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
    """What the runtime asks of a team member: one decentralised agent choosing a primitive action per step.

    Beside `reset` and `act`: whether it waits on a model (`decides_concurrently`: the runtime then asks it on a
    thread beside its partners), whether it varies by itself (`samples`: a model at a temperature above 0, a
    person), where it writes its trace events (`set_tracer`), what it used of a language model (`llm_usage`, None
    for a member that asks none) and `close`, which frees what it holds (a graph agent's vector store). Members
    that only compute inherit `MemberBase` for all of these; `coopgraph.testing.check_member` checks a member.
    """

    @property
    def name(self) -> str:
        """What the member is called in results and traces (`mhp`, a spec's name, `human`)."""

    @property
    def decides_concurrently(self) -> bool: ...

    @property
    def samples(self) -> bool: ...

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None: ...

    def act(self, observation: Observation) -> PrimitiveAction: ...

    def set_tracer(self, tracer: Any) -> None:
        """Take the tracer bound to this member's agent, before its first step (a member may write no events)."""

    def llm_usage(self) -> Mapping[str, float] | None:
        """Calls, tokens, failed calls and fallbacks of the member's language model; None when it asks none."""

    def close(self) -> None:
        """Free what the member holds once its episode is over (a graph agent's vector store)."""


class MemberBase:
    """The defaults of a `TeamMember` that asks no model: scripted partners (each world's `experts/`) and the
    person at a front end inherit them and write only `reset` and `act`.

    It decides on the runner's thread, samples nothing (a person says `samples = True`), keeps the tracer it is
    handed in `tracer` for members that write `plan` events, has no LLM usage and holds nothing to close."""

    name: str = "member"
    decides_concurrently: bool = False
    samples: bool = False
    tracer: Any = None

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        raise NotImplementedError(f"{type(self).__name__} must write reset(agent_id, env_info, seed)")

    def act(self, observation: Observation) -> PrimitiveAction:
        raise NotImplementedError(f"{type(self).__name__} must write act(observation)")

    def set_tracer(self, tracer: Any) -> None:
        self.tracer = tracer

    def llm_usage(self) -> Mapping[str, float] | None:
        return None

    def close(self) -> None:
        return None


#: The unit a world's clock counts (C-WAH steps, TDW-MAT frames, Overcooked ticks, the Collab games' turns).
TimeUnit = Literal["steps", "frames", "ticks", "turns"]


class AgentInfo(BaseModel):
    """What a team member may know before the first step (`TeamMember.reset`'s `env_info`): the fields every world
    fills in. Each world extends it with its own typed fields, so a kit reads `info.floorplan`, not a string key.

    Item access (`info["goal"]`, `info.get("rules")`) is kept for code not yet moved to attributes; it reads the
    same fields and raises `KeyError` for a field the world does not have.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, extra="forbid")

    env: str
    episode_id: str
    agent_id: str
    agent_name: str
    agents: list[str]
    goal_text: str = ""
    max_steps: int = Field(ge=0, description="the horizon, in the world's time unit")

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in type(self).model_fields

    def get(self, key: str, default: Any = None) -> Any:
        """The field `key`, or `default` when this world's info has no such field."""
        return getattr(self, key) if key in type(self).model_fields else default


#: A team metric in a result: a number, or one number per agent where the team's figure hides who did the work
#: (Overcooked's `deliveries_by_agent`: who served the soups).
MetricValue = float | dict[str, float]


@runtime_checkable
class WorldMetrics(Protocol):
    """What a world measures at the end of an episode: the team's outcome and each agent's share."""

    success: bool
    steps: int

    @property
    def per_agent(self) -> Mapping[str, BaseModel]: ...

    def summary(self) -> Mapping[str, MetricValue]:
        """The team metrics as name → number (or agent → number) for results and tables."""


@runtime_checkable
class World(Protocol):
    """What the runtime asks of a world beside PettingZoo's `ParallelEnv` (which stays the stepping API).

    `name` is the registered name, `episode_id` the episode being played, `time_unit` what the clock counts and
    `default_episode` what a run plays when it names none. `agent_info` is the typed start-of-episode knowledge a
    member's kit is built from, `metrics` the typed outcome, `layout` the JSON the trace viewer draws (None: no map).
    `coopgraph.testing.check_world` checks a world against it.
    """

    name: str
    time_unit: ClassVar[TimeUnit]
    default_episode: ClassVar[str]

    @property
    def episode_id(self) -> str: ...

    def agent_info(self, agent_id: str) -> AgentInfo: ...

    def metrics(self) -> WorldMetrics: ...

    def layout(self) -> dict[str, Any] | None:
        """The JSON the trace viewer draws the world from, or None for a world it draws no map of."""


@dataclass
class AgentKit:
    """What an agent takes from its world: a belief to keep, its action list, its skills, and what it offers.

    `capabilities` names what the belief offers beyond the core `Belief` protocol (see
    `coopgraph.envs.capabilities.CAPABILITIES`); nodes that require one are refused before an episode on a
    kit without it. `read_message` folds the facts a partner's message states into the belief; it only
    records data and never turns a message into an action. `prompt_env` names the world's prompt templates
    (`cwah` serves C-WAH and Noisy-C-WAH). `news`, for kits with the `news` capability, makes a reporter
    for a belief, which `communication.report_news` uses to keep partners informed without an LLM.
    """

    belief: Belief
    affordances: Affordances
    skillbook: SkillBook
    read_message: Callable[[Any, Message], None]
    prompt_env: str
    capabilities: frozenset[str] = frozenset()
    news: Callable[[Any], NewsReporter] | None = None


@runtime_checkable
class NewsReporter(Protocol):
    """Template news for partners: what this agent has learnt that they have not been told yet."""

    def note_put(self, belief: Any, obs: Observation) -> None:
        """Remember this agent's own delivery of the last step, to report it with the next message."""

    def compose(self, belief: Any, choice: Affordance) -> str:
        """The message worth a step before `choice` ("" when there is none), marking its contents as told."""
