"""Template messages of the MHP baseline (after CoELA appendix F): progress, intent and belief sharing.

One message may combine the three parts, separated by " | ":
    P: I put <plate> (373) on <kitchentable> (130) in <kitchen> (56).
    I: Next I will get <fork> (369).
    B: Empty in <kitchen> (56): <kitchencabinet> (75), <dishwasher> (104). Seen: <fork> (369) inside
       <kitchencabinet> (76) in <kitchen> (56).
`read_message` folds a partner's message back into a CWAHBelief; free-form text is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coopgraph.envs.cwah.belief import CWAHBelief, KnownObject, PartnerIntent
from coopgraph.envs.protocol import STRICT_LABEL_PATTERN, Message

_LABEL = STRICT_LABEL_PATTERN  # the templates write `<name> (id)` with one space; read them as strictly
_PUT = re.compile(rf"{_LABEL} (on|in) {_LABEL} in {_LABEL}")
_INTENT = re.compile(rf"Next I will (get|put|check|explore) {_LABEL}")
_EMPTY = re.compile(rf"Empty in {_LABEL}: ((?:{_LABEL}(?:, )?)+)")
_SEEN = re.compile(rf"{_LABEL} (inside|on) {_LABEL} in {_LABEL}")
_LABELS = re.compile(_LABEL)
INTENT_VERBS = {"gograb": "get", "goput": "put", "gocheck": "check", "goexplore": "explore"}
_VERB_KINDS = {verb: kind for kind, verb in INTENT_VERBS.items()}


@dataclass
class News:
    """What an agent has to tell since its last message."""

    puts: list[str] = field(default_factory=list)
    intent: str = ""
    empty: dict[str, list[str]] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.puts or self.intent or self.empty or self.seen)


def put_phrase(obj: KnownObject, relation: str, target: KnownObject, room_label: str) -> str:
    return f"{obj.label} {relation} {target.label} in {room_label}"


def seen_phrase(obj: KnownObject, holder: KnownObject, room_label: str) -> str:
    relation = "inside" if obj.inside == holder.id else "on"
    return f"{obj.label} {relation} {holder.label} in {room_label}"


def intent_phrase(kind: str, target_label: str) -> str:
    return f"Next I will {INTENT_VERBS[kind]} {target_label}." if kind in INTENT_VERBS else ""


def write_message(news: News, limit: int = 500) -> str:
    """Combine the parts; belief details that would pass the length limit are left out."""
    sections = []
    if news.puts:
        sections.append("P: I put " + "; ".join(news.puts) + ".")
    if news.intent:
        sections.append("I: " + news.intent)
    head = " | ".join(sections)
    details = [f"Empty in {room}: {', '.join(items)}." for room, items in news.empty.items()]
    details += [f"Seen: {phrase}." for phrase in news.seen]
    kept = ""
    for part in details:
        candidate = f"{kept} {part}".strip()
        if len(f"{head} | B: {candidate}") <= limit:
            kept = candidate
    if kept:
        head = f"{head} | B: {kept}" if head else f"B: {kept}"
    return head[:limit]


def read_message(belief: CWAHBelief, message: Message) -> None:
    """Update `belief` with the facts in a partner's template message (other text is ignored)."""
    for section in message.text.split(" | "):
        if section.startswith("P: "):
            for obj, oid, rel, _target, tid, _room, rid in _PUT.findall(section):
                inside = rel == "in"
                holder_id = int(tid)
                belief.note_object(
                    int(oid),
                    obj,
                    "item",
                    int(rid),
                    inside=holder_id if inside else None,
                    on=None if inside else holder_id,
                )
        elif section.startswith("I: "):
            for verb, name, target_id in _INTENT.findall(section):
                _assume_grabbed(belief, message.sender)
                if _VERB_KINDS[verb] == "gograb" and int(target_id) not in belief.objects:
                    # Known by name only, so it is counted against what is still to fetch and labelled by name.
                    belief.note_object(int(target_id), name, "item", None)
                belief.note_partner(
                    message.sender,
                    intent=PartnerIntent(kind=_VERB_KINDS[verb], target_id=int(target_id), step=message.step),
                )
        elif section.startswith("B: "):
            rooms = [int(match[1]) for match in _EMPTY.findall(section)] + [
                int(m[6]) for m in _SEEN.findall(section)
            ]
            if rooms:
                belief.note_partner(message.sender, room_id=rooms[0])
            for _room, room_id, listing, *_ in _EMPTY.findall(section):
                for name, container_id in _LABELS.findall(listing):
                    belief.note_object(int(container_id), name, "container", int(room_id))
                    belief.note_checked(int(container_id))
            for obj, oid, rel, holder, hid, _room, rid in _SEEN.findall(section):
                belief.note_object(int(hid), holder, "container" if rel == "inside" else "surface", int(rid))
                inside, holder_id = rel == "inside", int(hid)
                belief.note_object(
                    int(oid),
                    obj,
                    "item",
                    int(rid),
                    inside=holder_id if inside else None,
                    on=None if inside else holder_id,
                )


def _assume_grabbed(belief: CWAHBelief, sender: str) -> None:
    """A partner moving on from "get X" without reporting X elsewhere is taken to be carrying X."""
    previous = belief.partner_intents.get(sender)
    if previous is None or previous.kind != "gograb" or previous.target_id is None:
        return
    obj = belief.objects.get(previous.target_id)
    if obj is not None and obj.held_by is None and belief.predicate_for(obj) is not None:
        belief.note_object(obj.id, obj.name, "item", None, held_by=sender)
