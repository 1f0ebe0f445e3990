"""Template news for partners: deliveries done, goal items seen, containers found empty, and the next plan.

Partners' message readers (`messages.read_message`) turn these sentences back into facts. Only news goes
out: what was told is remembered, and a message is worth its ticks only when it reports a delivery or a
sighting, or announces a fetch (so the partner does not go for the same item).
"""

from __future__ import annotations

from coopgraph.envs.protocol import Affordance, AffordanceGroup, Observation, PrimitiveAction
from coopgraph.testing.toyhouse.belief import HouseBelief, Intent

_ANNOUNCED = (AffordanceGroup.FETCH, AffordanceGroup.INSPECT, AffordanceGroup.EXPLORE)


class HouseNews:
    """Implements the `NewsReporter` protocol for the toyhouse."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.pending_puts: list[str] = []
        self.reported: dict[int, tuple[int | None, int | None, int | None]] = {}
        self.reported_empty: set[int] = set()
        self.last_intent: tuple[str, int | None] | None = None

    def note_put(self, belief: HouseBelief, obs: Observation) -> None:
        """Remember this agent's own delivery of the last tick, to report it with the next message."""
        if not (obs.last_action_ok and (obs.last_action or "").startswith("[drop]")):
            return
        action = PrimitiveAction.parse(obs.last_action or "")
        item = belief.objects.get(action.object_id) if action.object_id is not None else None
        target = belief.objects.get(action.target_id) if action.target_id is not None else None
        if item is not None and target is not None:
            self.pending_puts.append(f"Put {item.label} {'into' if target.kind == 'container' else 'onto'} "
                                     f"{target.label}.")
            self.reported[item.id] = (target.room_id, item.inside, item.on)

    def _sightings(self, belief: HouseBelief) -> list[tuple[int, str]]:
        found = []
        for obj in belief.goal_objects():
            where = (obj.room_id, obj.inside, obj.on)
            if obj.source == "seen" and self.reported.get(obj.id) != where:
                found.append((obj.id, f"Saw {obj.label} {belief.whereabouts(obj)} in the "
                                      f"{belief.rooms[obj.room_id].label}."))  # type: ignore[index]
        return found

    def _empties(self, belief: HouseBelief) -> list[tuple[int, str]]:
        found = []
        for container_id in sorted(belief.checked_containers):
            container = belief.objects.get(container_id)
            targets = {p.target_id for p in belief.goal}  # where things go, not where they hide
            if (container is None or container.source != "seen" or container_id in self.reported_empty
                    or container_id in targets):
                continue
            if not any(o.inside == container_id and o.name in belief.goal_classes for o in belief.objects.values()):
                found.append((container_id, f"Opened {container.label}: nothing needed inside."))
        return found

    def compose(self, belief: HouseBelief, choice: Affordance) -> str:
        """The message worth its ticks before `choice` ("" when there is none), marking its contents as told."""
        intent = (choice.kind, choice.target_id)
        announce = choice.group in _ANNOUNCED and intent != self.last_intent
        seen, empty = self._sightings(belief), self._empties(belief)
        if not (self.pending_puts or seen or (announce and choice.group == AffordanceGroup.FETCH)):
            return ""
        sentences = list(self.pending_puts) + [text for _, text in seen] + [text for _, text in empty]
        if announce:
            sentences.append(f"Next: {choice.text}.")
        kept: list[str] = []
        for sentence in sentences:
            if len(" ".join([*kept, sentence])) <= self.max_chars:
                kept.append(sentence)
        text = " ".join(kept)
        self.pending_puts.clear()
        for object_id, sentence in seen:
            if sentence in kept:
                obj = belief.objects[object_id]
                self.reported[object_id] = (obj.room_id, obj.inside, obj.on)
        self.reported_empty |= {container_id for container_id, sentence in empty if sentence in kept}
        if announce and f"Next: {choice.text}." in kept:
            self.last_intent = intent
            belief.intent = Intent(kind=choice.kind, target_id=choice.target_id, step=belief.step)
        return text
