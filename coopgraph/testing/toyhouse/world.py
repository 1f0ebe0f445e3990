"""The toyhouse's state and rules: what each primitive action does, what it costs, and why it may fail.

Primitive actions: `[move] <room or thing> (id)` walks one cell toward it; `[take] <item> (id)` picks up an
item on the agent's cell (one hand: one item at a time); `[drop] <item> (id) <target> (id)` puts the held item
on a surface or into an open container on the agent's cell (`[drop] <item> (id)` leaves it on the floor);
`[open] <container> (id)` opens a closed container on the agent's cell; `[send_message] text`; `[wait]`.
Every action takes one tick except opening (`open_ticks`) and messages (one tick per `chars_per_tick`
characters started); a failed action takes one tick and changes nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.protocol import Message, PrimitiveAction
from coopgraph.testing.toyhouse.episodes import EpisodeSpec
from coopgraph.testing.toyhouse.grid import Cell, Grid

ACTION_KINDS: tuple[str, ...] = ("move", "take", "drop", "open", "send_message", "wait")
AGENT_IDS: tuple[str, ...] = ("agent_0", "agent_1", "agent_2", "agent_3")
AGENT_NAMES: tuple[str, ...] = ("Ann", "Ben", "Cid", "Dot")


class HouseRules(BaseModel):
    """The toyhouse's constants; `make("toyhouse", hands=2)` overrides any of them."""

    model_config = ConfigDict(frozen=True)

    hands: int = Field(default=1, ge=1, description="items an agent can carry at once")
    open_ticks: int = Field(default=2, ge=1, description="ticks it takes to open a container")
    chars_per_tick: int = Field(default=60, ge=1, description="a message takes one tick per this many characters")
    max_message_chars: int = Field(default=300, ge=1, description="longer messages are cut")
    max_steps: int | None = Field(default=None, ge=1, description="horizon in ticks (default: the episode's)")


@dataclass
class Thing:
    """One object's live state; a held item's cell follows its holder."""

    id: int
    name: str
    kind: str
    cell: Cell
    on: int | None = None
    inside: int | None = None
    is_open: bool | None = None
    held_by: str | None = None


@dataclass
class Agent:
    """One agent's live state: where it stands, what it holds, until when its last action runs, its totals."""

    id: str
    name: str
    cell: Cell
    holding: list[int] = field(default_factory=list)
    busy_until: int = 0
    last_action: str | None = None
    last_ok: bool = True
    last_reason: str = ""
    last_cost: int = 0
    travelled: int = 0
    messages_sent: int = 0
    characters_sent: int = 0
    invalid_actions: int = 0
    inbox: list[Message] = field(default_factory=list)


@dataclass
class Outcome:
    ok: bool
    reason: str = ""
    cost: int = 1
    message: Message | None = None


def _fail(reason: str) -> Outcome:
    return Outcome(ok=False, reason=reason)


class World:
    """Objects, agents, goal and clock of one episode."""

    def __init__(self, episode: EpisodeSpec, grid: Grid, agent_ids: list[str], rules: HouseRules) -> None:
        self.episode, self.grid, self.rules = episode, grid, rules
        self.goal = episode.goal_predicates()
        self.time = 0
        self.things: dict[int, Thing] = {}
        for spec in episode.objects:  # furniture first, so items can take their holder's cell
            if spec.cell is not None:
                self.things[spec.id] = Thing(spec.id, spec.name, spec.kind, tuple(spec.cell),  # type: ignore[arg-type]
                                             is_open=spec.open if spec.kind == "container" else None)
        for spec in episode.objects:
            if spec.cell is None:
                holder = self.things[spec.on if spec.on is not None else spec.inside]  # type: ignore[index]
                self.things[spec.id] = Thing(spec.id, spec.name, spec.kind, holder.cell, on=spec.on,
                                             inside=spec.inside)
        # An episode lists two starts; a third and fourth agent start where the first and second do (cells hold
        # any number of agents).
        starts = episode.starts
        self.agents = {agent_id: Agent(agent_id, AGENT_NAMES[i], tuple(starts[i % len(starts)]))  # type: ignore[arg-type]
                       for i, agent_id in enumerate(agent_ids)}

    # ------------------------------------------------------------------ queries
    def room_of(self, cell: Cell) -> int:
        return self.grid.room_of(cell)

    def visible_to(self, thing: Thing, agent: Agent) -> bool:
        """Everything in the agent's room that is not carried and not shut in a closed container."""
        if thing.held_by is not None or self.room_of(thing.cell) != self.room_of(agent.cell):
            return False
        return thing.inside is None or bool(self.things[thing.inside].is_open)

    def satisfied(self) -> list[int]:
        """Per goal predicate, how many objects of its name are on/in its target now."""
        counts = []
        for predicate in self.goal:
            relation = "on" if predicate.relation == "ON" else "inside"
            counts.append(sum(1 for t in self.things.values()
                              if t.name == predicate.object_name and getattr(t, relation) == predicate.target_id))
        return counts

    def is_done(self) -> bool:
        return all(n >= p.count for n, p in zip(self.satisfied(), self.goal, strict=True))

    def ready(self, agent_id: str) -> bool:
        return self.agents[agent_id].busy_until <= self.time

    # ------------------------------------------------------------------ rules
    def apply(self, agent_id: str, action: PrimitiveAction) -> Outcome:
        """Apply one agent's action at the current tick; never raises for a bad action."""
        agent = self.agents[agent_id]
        handler = getattr(self, f"_{action.kind}", None) if action.kind in ACTION_KINDS else None
        outcome = handler(agent, action) if handler else _fail(
            f"unknown action kind {action.kind!r}; valid: {', '.join(ACTION_KINDS)}")
        if not outcome.ok:
            agent.invalid_actions += 1
            outcome.cost = 1
        agent.busy_until = self.time + outcome.cost
        agent.last_action, agent.last_ok = action.text, outcome.ok
        agent.last_reason, agent.last_cost = outcome.reason, outcome.cost
        return outcome

    def reject(self, agent_id: str, reason: str) -> Outcome:
        """An action the world could not even read: the agent waits a tick instead, and is told why."""
        agent = self.agents[agent_id]
        agent.invalid_actions += 1
        agent.busy_until, agent.last_cost = self.time + 1, 1
        agent.last_action, agent.last_ok, agent.last_reason = "[wait]", False, reason
        return _fail(reason)

    def _at_hand(self, agent: Agent, target_id: int | None, kinds: tuple[str, ...]) -> Thing | Outcome:
        """The target when the agent can touch it now (visible, on its cell, of the right kind), else why not."""
        thing = self.things.get(target_id) if target_id is not None else None
        if thing is None:
            return _fail(f"no thing with id {target_id}")
        if thing.kind not in kinds:
            return _fail(f"<{thing.name}> ({thing.id}) is a {thing.kind}; this needs a {' or '.join(kinds)}")
        if not self.visible_to(thing, agent):
            return _fail(f"<{thing.name}> ({thing.id}) is not in sight")
        if thing.cell != agent.cell:
            return _fail(f"<{thing.name}> ({thing.id}) is {self.grid.distance(agent.cell, thing.cell)} cells away; "
                         "move onto its cell first")
        return thing

    def _move(self, agent: Agent, action: PrimitiveAction) -> Outcome:
        target = action.target_id
        if target in self.grid.rooms:
            goal = self.grid.rooms[target].center
        elif target in self.things and self.visible_to(self.things[target], agent):
            goal = self.things[target].cell
        else:
            return _fail(f"cannot move to {target}: name a room, or a thing in sight")
        if agent.cell == goal:
            return Outcome(ok=True, reason="already there")
        agent.cell = self.grid.next_cell(agent.cell, goal)
        agent.travelled += 1
        for thing_id in agent.holding:
            self.things[thing_id].cell = agent.cell
        return Outcome(ok=True)

    def _take(self, agent: Agent, action: PrimitiveAction) -> Outcome:
        found = self._at_hand(agent, action.target_id, ("item",))
        if isinstance(found, Outcome):
            return found
        if len(agent.holding) >= self.rules.hands:
            return _fail(f"hands full (holding {len(agent.holding)} of {self.rules.hands}); drop something first")
        found.held_by, found.on, found.inside = agent.id, None, None
        agent.holding.append(found.id)
        return Outcome(ok=True)

    def _drop(self, agent: Agent, action: PrimitiveAction) -> Outcome:
        held_id, target_id = action.object_id, action.target_id
        if held_id is None and target_id in agent.holding:  # `[drop] <apple> (21)`: set it down here
            held_id, target_id = target_id, None
        elif held_id is None and len(agent.holding) == 1:
            held_id = agent.holding[0]
        if held_id is None or held_id not in agent.holding:
            return _fail(f"not holding {held_id}" if held_id is not None else "drop what? name the held item")
        on = inside = None
        if target_id is not None:
            target = self._at_hand(agent, target_id, ("surface", "container"))
            if isinstance(target, Outcome):
                return target
            if target.kind == "container" and not target.is_open:
                return _fail(f"<{target.name}> ({target.id}) is closed; open it first")
            on, inside = (target.id, None) if target.kind == "surface" else (None, target.id)
        held = self.things[held_id]
        agent.holding.remove(held_id)
        held.held_by, held.on, held.inside, held.cell = None, on, inside, agent.cell
        return Outcome(ok=True)

    def _open(self, agent: Agent, action: PrimitiveAction) -> Outcome:
        found = self._at_hand(agent, action.target_id, ("container",))
        if isinstance(found, Outcome):
            return found
        if found.is_open:
            return _fail(f"<{found.name}> ({found.id}) is already open")
        found.is_open = True
        return Outcome(ok=True, cost=self.rules.open_ticks)

    def _send_message(self, agent: Agent, action: PrimitiveAction) -> Outcome:
        text = (action.message or "").strip()
        if not text:
            return _fail("empty message")
        if action.recipient is not None and (action.recipient == agent.id or action.recipient not in self.agents):
            partners = ", ".join(a for a in self.agents if a != agent.id) or "(none)"
            return _fail(f"no partner {action.recipient!r} to address; partners: {partners}")
        sent = text[: self.rules.max_message_chars]
        agent.messages_sent += 1
        agent.characters_sent += len(sent)
        reason = f"message cut from {len(text)} to {len(sent)} characters" if len(sent) < len(text) else ""
        cost = max(1, math.ceil(len(sent) / self.rules.chars_per_tick))
        return Outcome(ok=True, reason=reason, cost=cost,
                       message=Message(sender=agent.id, text=sent, step=self.time + 1, truncated=bool(reason),
                                       to=action.recipient))

    def _wait(self, agent: Agent, action: PrimitiveAction) -> Outcome:
        return Outcome(ok=True)
