"""Reads the facts and plans in a partner's message into the belief; never turns a message into an action.

It reads the news reporter's sentences (`Put <apple> (21) into <basket> (12).`, `Saw <book> (22) in <chest> (13)
in the <study> (3).`, `Opened <chest> (13): nothing needed inside.`, `Next: [fetch] <cup> (23).`) and free text
that names things the same way: `<x> (i) in/on <y> (j)` places x, a sentence saying a container is empty marks
it looked into, a sentence saying what the sender will do records its plan.
"""

from __future__ import annotations

import re

from coopgraph.envs.protocol import LABEL, Message, action_kind
from coopgraph.testing.toyhouse.belief import HouseBelief, Intent

_SENTENCES = re.compile(r"[^.;!?|]+")
_PLAN = re.compile(r"\[(?:fetch|open|visit|deliver)\]|\b(next|will|going|gonna|heading|plan|let me|i'll)\b", re.I)
_OPENING = re.compile(r"\bopen", re.I)
_EMPTY = re.compile(r"\b(empty|nothing)\b", re.I)
_INSIDE = re.compile(r"\b(in|inside|into)\b", re.I)
_ON = re.compile(r"\b(on|onto)\b", re.I)
_HERE = re.compile(r"\b(i am|i'm)\s+in\b", re.I)


def _is_room(belief: HouseBelief, name: str, thing_id: int) -> bool:
    return thing_id in belief.rooms and belief.rooms[thing_id].name == name


def _room_named(belief: HouseBelief, matches: list[re.Match[str]]) -> int | None:
    """The first room the sentence names, if any."""
    return next((int(m["id"]) for m in matches if _is_room(belief, m["name"], int(m["id"]))), None)


def _kind(belief: HouseBelief, thing_id: int) -> str | None:
    known = belief.objects.get(thing_id)
    return known.kind if known is not None else None


def _read_plan(belief: HouseBelief, sender: str, sentence: str, step: int) -> None:
    labels = [(m["name"], int(m["id"])) for m in LABEL.finditer(sentence)]
    if not labels:
        return
    name, target = labels[0]
    kind = action_kind(sentence[sentence.index("["):]) if "[" in sentence else None
    if kind is None:
        if _is_room(belief, name, target):
            kind = "visit"
        elif _kind(belief, target) != "item" and _OPENING.search(sentence):
            kind = "open"
        else:
            kind = "fetch"
    belief.note_partner(sender, intent=Intent(kind=kind, target_id=target, step=step))


def _read_facts(belief: HouseBelief, sender: str, sentence: str) -> None:
    matches = list(LABEL.finditer(sentence))
    holders: set[int] = set()
    for first, second in zip(matches, matches[1:], strict=False):
        name, thing_id = first["name"], int(first["id"])
        if thing_id in holders or _is_room(belief, name, thing_id) or _kind(belief, thing_id) not in (None, "item"):
            continue
        holders.add(int(second["id"]))
        holder_name, holder_id = second["name"], int(second["id"])
        between = sentence[first.end():second.start()]
        if _is_room(belief, holder_name, holder_id):
            belief.note_object(thing_id, name, "item", holder_id)  # on the floor there
        elif _INSIDE.search(between):
            belief.note_object(thing_id, name, "item", _room_named(belief, matches), inside=holder_id)
        elif _ON.search(between):
            belief.note_object(thing_id, name, "item", _room_named(belief, matches), on=holder_id)
    if _EMPTY.search(sentence):
        for match in matches:
            if _kind(belief, int(match["id"])) in (None, "container") and not _is_room(belief, match["name"],
                                                                                       int(match["id"])):
                belief.note_checked(int(match["id"]))
    room = _room_named(belief, matches)
    if _HERE.search(sentence) and room is not None:
        belief.note_partner(sender, room_id=room)


def read_message(belief: HouseBelief, message: Message) -> None:
    """Fold the facts and the plan a partner's message states into `belief`."""
    for sentence in _SENTENCES.findall(message.text):
        if _PLAN.search(sentence):
            _read_plan(belief, message.sender, sentence, message.step)
        else:
            _read_facts(belief, message.sender, sentence)
