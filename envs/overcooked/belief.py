"""One cook's belief about the kitchen, written as LLM-Co's state description D(S).

The kitchen is fully observable, so the belief is the last observation plus what LLM-Co computes from it before
each call: both cooks' BFS distances to every dispenser, pot, serving spot, shared counter, gate (and, for this
cook, counter), with "blocked by" and "inaccessible" as its action manager decides them (`paths.reach`). The
action list (`affordances.py`) reads the same numbers, so the text and the options never disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.envs.capabilities import SUBGOAL, ProgressEvent
from coopgraph.envs.overcooked.kitchen import Kitchen
from coopgraph.envs.overcooked.layout_facts import layout_facts
from coopgraph.envs.overcooked.layouts import Cell, load_layout
from coopgraph.envs.overcooked.mdp import GATE_OPEN_TICKS
from coopgraph.envs.overcooked.observation import GateView, Held, OvercookedObservation, PotView
from coopgraph.envs.overcooked.paths import INACCESSIBLE, Reach, reach, step_distances
from coopgraph.envs.overcooked.situation import situation
from coopgraph.envs.protocol import Observation

if TYPE_CHECKING:
    from coopgraph.envs.overcooked.env import OvercookedAgentInfo

#: The letters of LLM-Co's location lists (its `k` counters appear only under environment details).
LOCATION_LETTERS = ("o", "p", "d", "c", "s", "g")


class OvercookedBelief:
    """Implements the core `Belief` protocol (update, D(S) and progress events) and the `layout` capability (the
    kitchen's places and who reaches them, for LLM-Co's layout description)."""

    def __init__(self, agent_id: str, env_info: OvercookedAgentInfo) -> None:
        self.agent_id = agent_id
        self.agent_name: str = env_info.agent_name
        names: dict[str, str] = dict(env_info.agent_names)
        self.partner_id: str = next((a for a in env_info.agents if a != agent_id), "")
        self.partner_name: str = names.get(self.partner_id, self.partner_id)
        self.agent_index: int = env_info.agent_index
        declared = tuple((int(x), int(y)) for x, y in env_info.shared_counters)
        self.kitchen = Kitchen.from_terrain(env_info.layout, tuple(env_info.terrain), declared)
        starts = env_info.starts or load_layout(env_info.layout).starts
        self.starts: tuple[Cell, ...] = tuple((int(x), int(y)) for x, y in starts)
        self._names = [names.get(a, a) for a in env_info.agents] or [self.agent_name, self.partner_name]
        self._message_limit = env_info.config.max_message_chars
        self.time = 0
        self.position: Cell = (0, 0)
        self.partner_position: Cell | None = None
        self.holding: Held | None = None
        self.held_before: Held | None = None
        self.partner_holding: Held | None = None
        self.pots: dict[str, PotView] = {}
        self.items: dict[str, Held] = {}  # counter label (k or s) -> what lies on it
        self.gates: dict[str, GateView] = {}
        self.mine: dict[str, Reach] = {}
        self.partners: dict[str, Reach] = {}
        self.score = 0
        self.deliveries = 0
        self._reported: int | None = None

    @property
    def message_limit(self) -> int:
        return self._message_limit

    @property
    def open_gates(self) -> frozenset[Cell]:
        return frozenset(self.kitchen.cell(label) for label, gate in self.gates.items() if gate.open)

    # ------------------------------------------------------------------------------------------- updating
    def update(self, obs: Observation) -> None:
        """Take the kitchen as this observation shows it and measure every place for both cooks."""
        assert isinstance(obs, OvercookedObservation), "Overcooked observes an OvercookedObservation"
        kitchen = self.kitchen
        self.held_before = self.holding
        self.time, self.position, self.holding = obs.time, obs.position, obs.holding
        partner = obs.partners[0] if obs.partners else None
        self.partner_position = partner.position if partner else None
        self.partner_holding = partner.holding if partner else None
        self.pots = {label: pot for label, pot in zip(kitchen.ids("c"), obs.pots, strict=True)}
        self.gates = {label: gate for label, gate in zip(kitchen.ids("g"), obs.gates, strict=True)}
        labels = kitchen.labels
        self.items = {labels[c.position]: c.item for c in obs.counters if c.position in labels}
        self.score, self.deliveries = obs.score, obs.deliveries
        self.mine = self._measure(self.position, self.partner_position, ("o", "p", "d", "c", "s", "k", "g"))
        self.partners = (self._measure(self.partner_position, self.position, LOCATION_LETTERS)
                         if self.partner_position is not None else {})

    def _measure(self, start: Cell, other: Cell | None, letters: tuple[str, ...]) -> dict[str, Reach]:
        gates = self.open_gates
        steps = step_distances(self.kitchen, start, other, gates)
        return {label: reach(self.kitchen, cell, other, steps, gates)
                for letter in letters for label, cell in zip(self.kitchen.ids(letter), self.kitchen.places[letter],
                                                             strict=True)}

    def my_reach(self, label: str) -> Reach:
        return self.mine.get(label, INACCESSIBLE)

    def partner_reach(self, label: str) -> Reach:
        return self.partners.get(label, INACCESSIBLE)

    def situation(self, label: str) -> str:
        """What a directive on `label` acts on as it stands: what this cook holds and the place's state
        (`situation.py`; the action manager reports the same token when a directive there did nothing)."""
        return situation(self.holding, label, self.pots.get(label), self.items.get(label), self.gates.get(label))

    def layout_facts(self) -> dict[str, Any]:
        """The `layout` capability: the kitchen's places and which cook reaches which (`layout_facts.py`)."""
        return layout_facts(self.kitchen, self.starts, self._names)

    # ------------------------------------------------------------------------------------------- D(S)
    @staticmethod
    def _held(thing: Held | None) -> str:
        return thing or "nothing"

    def inventory_text(self) -> str:
        return (f"<Inventory>: I am holding {self._held(self.holding)}. {self.partner_name} is holding "
                f"{self._held(self.partner_holding)}.")

    def location_text(self, mine: bool = True) -> str:
        """`<My location information:> o0 is 1 units away. ...` (or the partner's, measured around this cook)."""
        reaches, other = (self.mine, self.partner_name) if mine else (self.partners, self.agent_name)
        head = "<My location information:>" if mine else f"<{self.partner_name}'s location information>:"
        parts = [reaches.get(label, INACCESSIBLE).text(label, other)
                 for letter in LOCATION_LETTERS for label in self.kitchen.ids(letter)]
        return " ".join([head, *parts])

    @staticmethod
    def pot_text(label: str, pot: PotView) -> str:
        status = "cooked" if pot.ready else "still cooking" if pot.cooking else "not cooking"
        return (f"{label} contains {pot.onions} out of 3 onions. {label} is {'on' if pot.cooking else 'off'}. "
                f"soup in {label} is {status}.")

    def closest_empty_counter(self) -> tuple[str, int] | None:
        """The nearest empty `k` counter this cook can reach (first by number on a tie) and its distance."""
        best: tuple[str, int] | None = None
        for label in self.kitchen.ids("k"):
            distance = self.my_reach(label).distance
            if label not in self.items and distance is not None and (best is None or distance < best[1]):
                best = (label, distance)
        return best

    def environment_text(self) -> str:
        """Pots, shared counters, filled counters, reachable gates, the closest empty counter: LLM-Co's order."""
        parts = [self.pot_text(label, pot) for label, pot in self.pots.items()]
        for label in self.kitchen.ids("s"):
            item = self.items.get(label)
            parts.append(f"{label} contains {item}." if item else f"{label} is empty.")
        for label in self.kitchen.ids("k"):
            if label in self.items:
                where = self.my_reach(label)
                parts.append(where.text(label, self.partner_name))
                if where.distance is not None:
                    parts.append(f"{label} contains {self.items[label]}.")
        for label, gate in self.gates.items():
            if self.my_reach(label).reachable:
                parts.append(f"{label} is {'open' if gate.open else 'closed'}.")
                if gate.open:
                    parts.append(f"{label} will stay open for {GATE_OPEN_TICKS - gate.timer} timesteps.")
        closest = self.closest_empty_counter()
        if closest is not None:
            parts.append(f"Closest empty kitchen counter {closest[0]} is {closest[1]} units away.")
        return " ".join(["<Environment Details>:", *parts])

    def progress_text(self, include_all: bool = False) -> str:
        """LLM-Co's state description D(S) without the action history and the action list (the kitchen is fully
        observed, so `include_all` changes nothing)."""
        return "\n".join([self.inventory_text(), self.location_text(True), self.location_text(False),
                          self.environment_text()])

    def describe(self, history: list[str], actions: list[str], keep: int = 5) -> str:
        """The whole D(S) as LLM-Co sends it: the last `keep` actions, the state, and the action list."""
        return "\n".join([f"action history: {', '.join(history[-keep:])}.", self.progress_text(),
                          f"Available Actions: [{', '.join(actions)}]."])

    def brief_text(self) -> str:
        """What is held and how the pots stand, in a few lines."""
        return "\n".join([self.inventory_text(), " ".join(self.pot_text(k, p) for k, p in self.pots.items()),
                          f"Score {self.score} ({self.deliveries} soups served) at tick {self.time}."])

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        """A soup served since the last call is a subgoal; the first call sets the baseline."""
        assert isinstance(obs, OvercookedObservation), "Overcooked observes an OvercookedObservation"
        if self._reported is None:
            self._reported = obs.deliveries
            return []
        events = []
        if obs.deliveries > self._reported:
            own = self.held_before == "soup in plate" and self.holding is None
            events.append(ProgressEvent(kind=SUBGOAL, text=f"soup served: score {obs.score}", own=own))
        self._reported = obs.deliveries
        return events
