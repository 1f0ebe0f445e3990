"""What a C-WAH agent has to tell its partners, in MHP's templates, and what it has told them already.

MHP composes its messages with it after choosing each subgoal. Graph agents use the same reporter through
`communication.report_news`, so a planner that cannot write (the distilled `local-coop`) still tells its
partners what it did, found and goes for next, in the format their message readers parse.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs.cwah.belief import CWAHBelief, PartnerIntent
from coopgraph.envs.cwah.messages import News, intent_phrase, put_phrase, seen_phrase, write_message
from coopgraph.envs.protocol import Affordance, Observation, PrimitiveAction


class NewsReporter:
    """Keeps what was reported (puts, sightings, empty containers, the last intent) so only news goes out."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.last_intent: tuple[str, int | None] | None = None
        self.pending_puts: list[str] = []
        self.reported: dict[int, tuple[Any, ...]] = {}
        self.reported_empty: set[int] = set()

    def note_put(self, belief: CWAHBelief, obs: Observation) -> None:
        """Remember my own successful put of the last step, to report it with the next message."""
        if not (obs.last_action_ok and obs.last_action and obs.last_action.startswith("[put]")):
            return
        action = PrimitiveAction.parse(obs.last_action)
        obj = belief.objects.get(action.object_id)  # type: ignore[arg-type]
        target = belief.objects.get(action.target_id)  # type: ignore[arg-type]
        if obj is not None and target is not None:
            relation = "in" if target.kind == "container" else "on"
            room = belief.rooms[target.room_id].label if target.room_id in belief.rooms else "<room> (0)"
            self.pending_puts.append(put_phrase(obj, relation, target, room))
            self.reported[obj.id] = ("put",)

    def news(self, belief: CWAHBelief, choice: Affordance) -> News:
        """Puts not yet told, the new intent, goal objects seen somewhere new, containers found empty."""
        news = News(puts=list(self.pending_puts))
        intent = (choice.kind, choice.target_id)
        if intent != self.last_intent and choice.kind in ("gograb", "gocheck", "goexplore"):
            news.intent = intent_phrase(choice.kind, f"<{choice.target_name}> ({choice.target_id})")
        for obj in belief.goal_objects():
            holder_id = obj.inside if obj.inside is not None else obj.on
            holder = belief.objects.get(holder_id) if holder_id is not None else None
            where = (obj.room_id, obj.inside, obj.on)
            if obj.source == "seen" and holder is not None and self.reported.get(obj.id) != where:
                news.seen.append(seen_phrase(obj, holder, belief.rooms[obj.room_id].label))  # type: ignore[index]
        for container_id in sorted(belief.checked_containers):
            container = belief.objects.get(container_id)
            if container is None or container_id in self.reported_empty or container.room_id is None:
                continue
            if any(o.inside == container_id and o.name in belief.goal_classes for o in belief.objects.values()):
                continue
            if container.source == "seen":
                news.empty.setdefault(belief.rooms[container.room_id].label, []).append(container.label)
        return news

    def compose(self, belief: CWAHBelief, choice: Affordance) -> str:
        """The message worth a step before `choice` ("" when there is none), marking its contents as told.

        It is worth a step when it reports a put or a sighting, or announces a grab (so the partner does
        not go for the same object)."""
        news = self.news(belief, choice)
        if not (news.puts or news.seen or (news.intent and choice.kind == "gograb")):
            return ""
        text = write_message(news, self.max_chars)
        self.pending_puts.clear()
        self.last_intent = (choice.kind, choice.target_id)
        if news.intent:
            belief.intent = PartnerIntent(kind=choice.kind, target_id=choice.target_id, step=belief.step)
        for obj in belief.goal_objects():
            if f"{obj.label} " in text:
                self.reported[obj.id] = (obj.room_id, obj.inside, obj.on)
        for labels in news.empty.values():
            for label in labels:
                if label in text:
                    self.reported_empty.add(int(label.rsplit("(", 1)[1].rstrip(")")))
        return text
