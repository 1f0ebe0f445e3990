"""The games' feasible actions in the reference's vocabulary, as a lettered list (`A. Move to room 2`).

Capture (the reference's order): stay, each room reachable through open doors, and pressing the button of the
room one stands in. Escape: a move along each link of one's room, fixing the generator of one's room while it is
unrepaired, and waiting. The letter is part of the text, as the reference's own option strings are, so a reply
that copies its line is read exactly; the skill book acts on `kind` and `room` only.
"""

from __future__ import annotations

from coopgraph.envs.collab.belief import CaptureBelief, EscapeBelief
from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance


class CollabAffordance(Affordance):
    """An action of either game: `phrase` in the reference's words, shown after its letter; `room` is the room it
    moves to, presses in or fixes in (None for staying and waiting)."""

    phrase: str
    letter: str = "A"
    room: int | None = None

    @property
    def text(self) -> str:
        return f"{self.letter}. {self.phrase}"


def _option(kind: str, phrase: str, room: int | None, note: str) -> CollabAffordance:
    group = AffordanceGroup.WAIT if kind in ("stay", "wait") else AffordanceGroup.OTHER
    return CollabAffordance(kind=kind, phrase=phrase, room=room, group=group, cost=1.0, notes=(note,),
                            target_name=None if room is None else f"room {room}")


def _lettered(options: list[CollabAffordance]) -> list[CollabAffordance]:
    return [o.model_copy(update={"letter": chr(ord("A") + i)}) for i, o in enumerate(options)]  # a few options


class CaptureAffordances:
    """Implements the `Affordances` protocol for Collab Capture."""

    def available(self, belief: CaptureBelief, message: str | None = None) -> list[Affordance]:
        options = [_option("stay", "Stay in current room", None, "stays where it is this turn")]
        options += [_option("move", f"Move to room {room}", room, f"moves to room {room}")
                    for room in belief.open_links(belief.room)]
        door = belief.button_here()
        if door is not None:
            a, b = door.rooms
            options.append(_option("press", f"Press button in room {belief.room}", belief.room,
                                   f"{'closes' if door.open else 'opens'} the door between room {a} and room {b}"))
        lettered: list[Affordance] = list(_lettered(options))
        return [message_affordance(message), *lettered] if message else lettered


class EscapeAffordances:
    """Implements the `Affordances` protocol for Collab Escape."""

    def available(self, belief: EscapeBelief, message: str | None = None) -> list[Affordance]:
        options = [_option("move", f"move to room {room}", room, f"moves to room {room}")
                   for room in belief.rooms.get(belief.room, ())]
        here = belief.generator_here()
        if here is not None and not here.repaired:
            options.append(_option("fix", f"fix generator in room {belief.room}", belief.room,
                                   "one fix; two in consecutive turns (or both of us at once) repair it"))
        options.append(_option("wait", "wait", None, "stays where it is this turn"))
        lettered: list[Affordance] = list(_lettered(options))
        return [message_affordance(message), *lettered] if message else lettered
