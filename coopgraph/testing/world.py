"""A tiny scripted world for the end-to-end smoke path: fetch an apple and put it in the fridge.

It is deliberately small (two rooms, a handful of objects) so a graph can be exercised with the
real embedded model in seconds; the real environments live in `coopgraph.envs`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ROOMS = ("kitchen", "livingroom")


@dataclass
class ToyWorld:
    """State: where the agent is, what it holds, where each object is; the goal is apple in fridge."""

    room: str = "livingroom"
    holding: str | None = None
    objects: dict[str, str] = field(default_factory=lambda: {
        "apple": "livingroom", "remote": "livingroom", "fridge": "kitchen", "mug": "kitchen",
    })
    in_fridge: list[str] = field(default_factory=list)
    steps: int = 0
    log: list[str] = field(default_factory=list)

    goal: str = "put the apple in the fridge"

    @property
    def done(self) -> bool:
        return "apple" in self.in_fridge

    def visible(self) -> list[str]:
        return sorted(o for o, where in self.objects.items() if where == self.room)

    def actions(self) -> list[str]:
        options = []
        if self.holding is None:
            options += [f"grab the {o}" for o in self.visible() if o != "fridge"]
        elif "fridge" in self.visible():
            options.append(f"put the {self.holding} in the fridge")
        options += [f"walk to the {r}" for r in ROOMS if r != self.room]
        options.append("wait")
        return options

    def facts(self, agent_name: str = "Alice") -> dict[str, Any]:
        held = f"holding the {self.holding}" if self.holding else "holding nothing"
        return {
            "agent_name": agent_name,
            "goal": self.goal,
            "visible": self.visible(),
            "facts_text": f"You are in the {self.room}, {held}. You see: {', '.join(self.visible()) or 'nothing'}. "
                          f"The fridge is in the {self.objects.get('fridge', 'kitchen')}.",
            "progress": self.progress(),
        }

    def progress(self) -> str:
        if self.done:
            return "done: the apple is in the fridge"
        if self.holding == "apple":
            return "you hold the apple; put it in the fridge, which is in the kitchen"
        return f"the apple is in the {self.objects['apple']}; grab it before you carry it anywhere"

    def step(self, action: str | None) -> str:
        """Apply one listed action; anything else wastes the step and says why."""
        self.steps += 1
        if action not in self.actions():
            result = f"ignored unlisted action {action!r}"
        elif action.startswith("walk to the "):
            self.room = action.removeprefix("walk to the ")
            if self.holding:
                self.objects[self.holding] = self.room
            result = f"walked to the {self.room}"
        elif action.startswith("grab the "):
            self.holding = action.removeprefix("grab the ")
            result = f"grabbed the {self.holding}"
        elif action.startswith("put the "):
            assert self.holding is not None
            self.in_fridge.append(self.holding)
            self.objects.pop(self.holding)
            result = f"put the {self.holding} in the fridge"
            self.holding = None
        else:
            result = "waited"
        self.log.append(result)
        return result
