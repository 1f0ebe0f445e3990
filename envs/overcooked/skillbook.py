"""LLM-Co's action manager as a skill book: a sticky directive becomes one primitive action per tick.

A directive such as `pick up onion from o0.` runs over many ticks: its place (`o0`) is found by the first
letter+digit pair; the cook walks (BFS, the partner a wall) to the first free side of it in the order north,
south, west, east that has a path, turns to face it, then acts by verb: `pick` and `open` interact with empty
hands, `place` (serving too) with full ones, `load` only with a plate at a cooked pot; any of these ends the
directive, and so does a side-less target (everyone asks again). An onion for a full pot ends the directive as a
failure without the interact, which the world would ignore (LLM-Co offers every pot, full or not). A directive
that ends at its target having changed nothing (that failure, a `load` at a pot that is not ready, a pick-up from
an empty counter, a put on a taken one) reports it, typed, in `SkillStep.unchanged` (`situation.py`). `wait.` is
one stay, `move away.` one step away from the partner. The stalemate rule: for the second player only, a
directive that has not moved or turned the cook since the last tick (and did not stand still on purpose) is
interrupted for one step away from the partner, then resumed; that step skips last tick's direction if that was a
step away too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coopgraph.envs.overcooked.kitchen import Kitchen
from coopgraph.envs.overcooked.layouts import Cell
from coopgraph.envs.overcooked.observation import Facing, OvercookedObservation
from coopgraph.envs.overcooked.paths import first_step, free_sides
from coopgraph.envs.overcooked.situation import interact_changes, situation
from coopgraph.envs.protocol import SEND_MESSAGE, WAIT, Affordance, Observation, PrimitiveAction, SkillStatus, SkillStep

_PLACE = re.compile(r"([a-z])(\d+)")
STEPS: dict[Cell, Facing] = {(0, -1): "north", (0, 1): "south", (1, 0): "east", (-1, 0): "west"}
DELTAS: dict[str, Cell] = {name: delta for delta, name in STEPS.items()}
#: The fallback order of a step away (west, north, south, east), after the directions away from the partner.
AWAY_ORDER: tuple[Cell, ...] = ((-1, 0), (0, -1), (0, 1), (1, 0))
STAY = PrimitiveAction(kind="stay")
INTERACT = PrimitiveAction(kind="interact")


def move(delta: Cell) -> PrimitiveAction:
    return PrimitiveAction(kind=STEPS[delta])


def facing_toward(position: Cell, target: Cell) -> Cell:
    """The direction LLM-Co turns to face `target` from a side of it."""
    dx, dy = target[0] - position[0], target[1] - position[1]
    return (1, 0) if dx > 0 else (-1, 0) if dx < 0 else (0, 1) if dy > 0 else (0, -1)


def step_away(kitchen: Kitchen, me: Cell, partner: Cell | None, open_gates: frozenset[Cell],
              avoid: Cell | None = None) -> PrimitiveAction:
    """One step away from the partner: first the directions pointing away from it, then west, north, south, east;
    `avoid` (last tick's step, when that too was a step away) is skipped; a stay if every side is taken."""
    preferred: list[Cell] = []
    if partner is not None:
        dx, dy = me[0] - partner[0], me[1] - partner[1]
        preferred += [(1, 0)] if dx > 0 else [(-1, 0)] if dx < 0 else []
        preferred += [(0, 1)] if dy > 0 else [(0, -1)] if dy < 0 else []
    for delta in preferred + [d for d in AWAY_ORDER if d not in preferred]:
        cell = (me[0] + delta[0], me[1] + delta[1])
        if delta != avoid and cell != partner and kitchen.walkable(cell, open_gates):
            return move(delta)
    return STAY


@dataclass(frozen=True)
class _Tick:
    """What the manager remembers of the last tick, for the stalemate rule."""

    position: Cell
    facing: str
    action: PrimitiveAction
    directive: str
    stepped_away: bool


def _run(action: PrimitiveAction) -> SkillStep:
    return SkillStep(status=SkillStatus.RUNNING, action=action)


def _end(status: SkillStatus, action: PrimitiveAction, reason: str) -> SkillStep:
    return SkillStep(status=status, action=action, reason=reason)


class ActionManager:
    """Implements the `SkillBook` protocol for Overcooked; `yields` is set for the second player (Bob), the only
    one the stalemate rule moves. A directive that finds no path for `patience` ticks fails (LLM-Co would wait on)."""

    def __init__(self, kitchen: Kitchen, yields: bool, patience: int = 25) -> None:
        self.kitchen, self.yields, self.patience = kitchen, yields, patience
        self.reset()

    def reset(self) -> None:
        self._plan: Affordance | None = None
        self._stuck = 0
        self._last: _Tick | None = None

    def next_action(self, plan: Affordance, observation: Observation) -> SkillStep:
        assert isinstance(observation, OvercookedObservation), "Overcooked observes an OvercookedObservation"
        obs = observation
        if plan is not self._plan:
            self._plan, self._stuck = plan, 0
        if not obs.ready:
            return _run(WAIT)
        step = self._decide(plan, obs)
        stepped_away = plan.text == "move away."
        if self._stalemate(plan, obs, step):
            avoid = DELTAS.get(self._last.action.kind) if self._last and self._last.stepped_away else None
            partner = obs.partners[0].position if obs.partners else None
            step = _run(step_away(self.kitchen, obs.position, partner, obs.open_gates, avoid))
            stepped_away = True
        assert step.action is not None
        self._last = _Tick(obs.position, obs.facing, step.action, plan.text, stepped_away)
        return step

    def _stalemate(self, plan: Affordance, obs: OvercookedObservation, step: SkillStep) -> bool:
        """The second player's directive is stuck: nothing moved or turned since last tick, not on purpose."""
        last = self._last
        return (self.yields and last is not None and step.status == SkillStatus.RUNNING
                and last.directive != "wait." and plan.text != "wait."
                and last.action.kind != "interact" and step.action is not None and step.action.kind != "interact"
                and last.position == obs.position and last.facing == obs.facing)

    def _decide(self, plan: Affordance, obs: OvercookedObservation) -> SkillStep:
        partner = obs.partners[0].position if obs.partners else None
        text = plan.text
        if plan.kind == SEND_MESSAGE:
            return _end(SkillStatus.DONE, PrimitiveAction(kind=SEND_MESSAGE, message=plan.message or ""), "said")
        if text == "wait.":
            return _end(SkillStatus.DONE, WAIT, "waited a tick")
        if text == "move away.":
            return _end(SkillStatus.DONE, step_away(self.kitchen, obs.position, partner, obs.open_gates), "moved away")
        found = _PLACE.search(text)
        try:
            target = self.kitchen.cell(found.group(0)) if found else None
        except KeyError:
            target = None
        if found is None or target is None:
            return _end(SkillStatus.FAILED, STAY, f"no place of this kitchen in {text!r}")
        label = found.group(0)
        if "open" in text and target in obs.open_gates:
            return _end(SkillStatus.DONE, STAY, f"{label} is open already")
        sides = free_sides(self.kitchen, target, partner, obs.open_gates)
        if not sides:
            return _end(SkillStatus.FAILED, STAY, f"no free side of {label}")
        if obs.position in sides:
            toward = facing_toward(obs.position, target)
            if obs.facing != STEPS[toward]:
                return _run(move(toward))  # the target is not walkable: this only turns the cook
            return self._act(text, label, target, obs)
        delta = first_step(self.kitchen, obs.position, sides, partner, obs.open_gates)
        if delta is None:
            self._stuck += 1
            if self._stuck > self.patience:
                return _end(SkillStatus.FAILED, STAY, f"no path to {label} for {self._stuck} ticks")
            return _run(STAY)
        self._stuck = 0
        return _run(move(delta))

    @classmethod
    def _act(cls, text: str, label: str, target: Cell, obs: OvercookedObservation) -> SkillStep:
        """At the target and facing it: act by verb (LLM-Co's REACHED). An end that changes nothing (a stay, or an
        interact the world will ignore) says so, with the situation it left as it was."""
        step = cls._by_verb(text, label, target, obs)
        pot = next((p for p in obs.pots if p.position == target), None)
        gate = next((g for g in obs.gates if g.position == target), None)
        place = (obs.holding, label, pot, obs.counter_item(target), gate)
        if step.action == INTERACT and interact_changes(*place):
            return step
        return step.model_copy(update={"unchanged": situation(*place)})

    @staticmethod
    def _by_verb(text: str, label: str, target: Cell, obs: OvercookedObservation) -> SkillStep:
        """LLM-Co's verbs: the directive's last primitive and how it ends."""
        held = obs.holding
        if "pick" in text or "open" in text:
            if held is None:
                return _end(SkillStatus.DONE, INTERACT, f"{'picked up' if 'pick' in text else 'opened'} at {label}")
            return _end(SkillStatus.FAILED, STAY, f"hands full ({held})")
        if "place" in text or "put" in text:
            pot = next((p for p in obs.pots if p.position == target), None)
            if held == "onion" and pot is not None and (pot.onions >= 3 or pot.cooking or pot.ready):
                # LLM-Co lists every reachable pot, full or not; the world would ignore the interact, so the
                # directive ends as what it is, a failure, and the trace does not record a put that never was
                return _end(SkillStatus.FAILED, STAY, f"{label} is full")
            if held is not None:
                return _end(SkillStatus.DONE, INTERACT, f"put {held} at {label}")
            return _end(SkillStatus.FAILED, STAY, "holding nothing")
        if "load" in text:
            pot = next((p for p in obs.pots if p.position == target), None)
            if held == "plate" and pot is not None and pot.ready:
                return _end(SkillStatus.DONE, INTERACT, f"loaded the soup of {label}")
            return _end(SkillStatus.FAILED, STAY, f"soup in {label} is not ready" if held == "plate" else "no plate")
        return _end(SkillStatus.FAILED, STAY, f"no verb to act on {label} in {text!r}")
