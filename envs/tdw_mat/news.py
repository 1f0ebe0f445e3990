"""What a TDW-MAT agent has to tell its partners, written so that their message reader (`kit.read_message`) turns it
back into facts, and what it has told them already.

`communication.report_news` (the `coela-news` wiring) sends it after each new plan, so a planner that cannot
write still says what it carried to the bed, where it saw targets and containers, and what it goes to grab.
RHP never talks, so this has no counterpart in CoELA's code: the sentences are this project's own.
"""

from __future__ import annotations

from coopgraph.envs.protocol import Affordance, Observation
from coopgraph.envs.tdw_mat.belief import TDWBelief


class TDWNewsReporter:
    """Keeps what was reported (deliveries, sightings by room, the last grab announced) so only news goes out."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.carried: set[int] = set()
        self.pending_delivered: list[int] = []
        self.reported_where: dict[int, int | None] = {}
        self.last_intent: int | None = None

    def note_put(self, belief: TDWBelief, obs: Observation) -> None:
        """Remember the targets this agent brought to the bed since the last step, to report them next."""
        held = set(belief.hand_items) | {i for inner in belief.contents.values() for i in inner}
        for object_id in sorted(self.carried - held):
            if object_id in belief.transported and object_id not in self.pending_delivered:
                self.pending_delivered.append(object_id)
                self.reported_where[object_id] = belief.plan.bed_room
        self.carried = held

    def _sightings(self, belief: TDWBelief) -> dict[int, list[int]]:
        """Free targets and usable containers this agent saw itself whose room it has not reported yet."""
        rooms: dict[int, list[int]] = {}
        things = [*belief.free_targets(), *belief.free_containers()]
        for obj in sorted(things, key=lambda o: o.id):
            if obj.source == "seen" and obj.room_id is not None and self.reported_where.get(obj.id) != obj.room_id:
                rooms.setdefault(obj.room_id, []).append(obj.id)
        return rooms

    def compose(self, belief: TDWBelief, choice: Affordance) -> str:
        """The message worth a few frames before `choice` ("" when there is none), marking its contents as told:
        deliveries, then sightings by room, then the grab this plan goes for."""
        sentences: list[str] = []
        if self.pending_delivered:
            names = ", ".join(belief.label_of(i) for i in self.pending_delivered)
            sentences.append(f"I transported {names} to the bed.")
        sightings = self._sightings(belief)
        for room_id, ids in sightings.items():
            sentences.append(f"{', '.join(belief.label_of(i) for i in ids)} in the {belief.label_of(room_id)}.")
        grab = choice.kind == "gograb" and choice.target_id is not None and choice.target_id != self.last_intent
        if grab:
            sentences.append(f"I will grab {belief.label_of(choice.target_id)}.")  # type: ignore[arg-type]
        if not (self.pending_delivered or sightings or grab):
            return ""
        text = ""
        for sentence in sentences:  # whole sentences only, within the world's limit
            if len(text) + len(sentence) + 1 > self.max_chars:
                break
            text = f"{text} {sentence}".strip()
        self.pending_delivered.clear()
        for room_id, ids in sightings.items():
            for object_id in ids:
                if belief.label_of(object_id) in text:
                    self.reported_where[object_id] = room_id
        if grab:
            self.last_intent = choice.target_id
        return text
