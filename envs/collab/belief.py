"""A player's belief in either game, written as the state the reference prompt gives, in this project's words.

Both games are fully observable, so a belief is the last observation plus the map from `agent_info`. Capture's
state: where the two players and the thief are, and which doors are open. Escape's: where the two players are,
who fixed a generator last turn, what is known of the killer's next move, how far each generator is from
repaired, and whether the exit is open. `layout_facts` (the `layout` capability) gives the fixed map to the
world's prompt templates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.envs.capabilities import SUBGOAL, ProgressEvent
from coopgraph.envs.collab.maps import FIXES_NEEDED, Adjacency
from coopgraph.envs.collab.observation import CaptureObservation, DoorView, EscapeObservation, GeneratorView
from coopgraph.envs.protocol import Observation

if TYPE_CHECKING:
    from coopgraph.envs.collab.capture_env import CaptureAgentInfo
    from coopgraph.envs.collab.escape_env import EscapeAgentInfo
    from coopgraph.envs.collab.world import CollabAgentInfo


class _Belief:
    """What both beliefs keep: who is who, the map, and the clock."""

    def __init__(self, agent_id: str, env_info: CollabAgentInfo) -> None:
        self.agent_id = agent_id
        self.agent_name: str = env_info.agent_name
        names: dict[str, str] = dict(env_info.agent_names)
        self.partner_id: str = next((a for a in env_info.agents if a != agent_id), "")
        self.partner_name: str = names.get(self.partner_id, self.partner_id.capitalize())
        self.agent_index: int = env_info.agent_index
        self.rooms: Adjacency = {int(room): tuple(links) for room, links in env_info.rooms.items()}
        self._message_limit = env_info.max_message_chars
        self.time = 0
        self.room = 0
        self.partner_room = 0
        self._reported: int | None = None

    @property
    def message_limit(self) -> int:
        return self._message_limit

    def _room_facts(self) -> list[dict[str, Any]]:
        return [{"room": room, "links": list(links)} for room, links in sorted(self.rooms.items())]

    def _progress(self, done: int, text: str, own: bool) -> list[ProgressEvent]:
        """A subgoal event when `done` went up since the last call; the first call sets the baseline."""
        if self._reported is None:
            self._reported = done
            return []
        events = [ProgressEvent(kind=SUBGOAL, text=text, own=own)] if done > self._reported else []
        self._reported = done
        return events


class CaptureBelief(_Belief):
    """Implements the core `Belief` protocol and `layout` for Collab Capture."""

    def __init__(self, agent_id: str, env_info: CaptureAgentInfo) -> None:
        super().__init__(agent_id, env_info)
        self.buttons: dict[str, int] = dict(env_info.buttons)
        self.thief_room = 0
        self.doors: list[DoorView] = []
        self.caught = False

    def update(self, obs: Observation) -> None:
        assert isinstance(obs, CaptureObservation), "Collab Capture observes a CaptureObservation"
        self.time, self.room, self.partner_room, self.thief_room = obs.time, obs.room, obs.partner_room, obs.thief_room
        self.doors, self.caught = list(obs.doors), obs.caught

    def door_open(self, a: int, b: int) -> bool:
        """Whether the link a-b is passable now (links without a door always are)."""
        pair = (min(a, b), max(a, b))
        return next((door.open for door in self.doors if door.rooms == pair), True)

    def open_links(self, room: int) -> list[int]:
        """The rooms reachable from `room` this turn, in the map's order."""
        return [r for r in self.rooms.get(room, ()) if self.door_open(room, r)]

    def button_here(self) -> DoorView | None:
        return next((door for door in self.doors if door.button == self.room), None)

    def progress_text(self, include_all: bool = False) -> str:
        doors = " ".join(f"The door between room {a} and room {b} is {'open' if d.open else 'closed'}."
                         for d in self.doors for a, b in [d.rooms])
        return (f"I am {self.agent_name}, in room {self.room}. {self.partner_name} is in room {self.partner_room}. "
                f"The thief is in room {self.thief_room}. {doors}")

    def brief_text(self) -> str:
        return f"Turn {self.time}. " + self.progress_text() + (" The thief is caught." if self.caught else "")

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        assert isinstance(obs, CaptureObservation), "Collab Capture observes a CaptureObservation"
        own = obs.room == obs.thief_room
        return self._progress(int(obs.caught), "the thief is caught", own)

    def layout_facts(self) -> dict[str, Any]:
        """The map: rooms and their links, each door with its button's room."""
        return {"game": "capture", "rooms": self._room_facts(),
                "doors": [{"rooms": [int(x) for x in pair.split("-")], "button": room}
                          for pair, room in self.buttons.items()]}


class EscapeBelief(_Belief):
    """Implements the core `Belief` protocol and `layout` for Collab Escape."""

    def __init__(self, agent_id: str, env_info: EscapeAgentInfo) -> None:
        super().__init__(agent_id, env_info)
        self.generator_rooms: list[int] = list(env_info.generators)
        self.exit_room: int = env_info.exit
        self.graph: str = env_info.graph
        self.killer_room = 0
        self.killer_chasing: str | None = None
        self.killer_news = ""
        self.generators: list[GeneratorView] = []
        self.fixed_last_turn = False
        self.partner_fixed_last_turn = False
        self.exit_open = False

    def update(self, obs: Observation) -> None:
        assert isinstance(obs, EscapeObservation), "Collab Escape observes an EscapeObservation"
        self.time, self.room, self.partner_room, self.killer_room = obs.time, obs.room, obs.partner_room, \
            obs.killer_room
        self.killer_chasing, self.killer_news = obs.killer_chasing, obs.killer_news
        self.generators = list(obs.generators)
        self.fixed_last_turn, self.partner_fixed_last_turn = obs.fixed_last_turn, obs.partner_fixed_last_turn
        self.exit_open = obs.exit_open

    def generator_here(self) -> GeneratorView | None:
        return next((g for g in self.generators if g.room == self.room), None)

    def generator_text(self, generator: GeneratorView) -> str:
        if generator.repaired:
            return f"The generator in room {generator.room} is repaired."
        left = FIXES_NEEDED - generator.fixes
        return f"The generator in room {generator.room} needs {left} more fix{'es' if left > 1 else ''}."

    def progress_text(self, include_all: bool = False) -> str:
        parts = [f"I am {self.agent_name}, in room {self.room}."]
        here = self.generator_here()
        if self.fixed_last_turn and here is not None:
            parts.append("I have repaired the generator here." if here.repaired
                         else "I began fixing the generator here last turn.")
        parts.append(f"{self.partner_name} is in room {self.partner_room}.")
        if self.partner_fixed_last_turn:
            parts.append(f"{self.partner_name} was fixing a generator last turn.")
        parts.append(self.killer_news)
        parts += [self.generator_text(g) for g in self.generators]
        parts.append(f"The exit in room {self.exit_room} is {'open' if self.exit_open else 'closed'}.")
        return " ".join(parts)

    def brief_text(self) -> str:
        return f"Turn {self.time}. " + self.progress_text()

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        assert isinstance(obs, EscapeObservation), "Collab Escape observes an EscapeObservation"
        repaired = sum(g.repaired for g in obs.generators)
        return self._progress(repaired, f"{repaired} of {len(obs.generators)} generators repaired",
                              obs.fixed_last_turn)

    def layout_facts(self) -> dict[str, Any]:
        """The map as this episode links it, the generators' rooms and the exit's."""
        return {"game": "escape", "rooms": self._room_facts(), "generators": list(self.generator_rooms),
                "exit": self.exit_room, "graph": self.graph, "fixes_needed": FIXES_NEEDED}
