"""A scripted chat "policy" for LLM-Co's Overcooked prompt: it reads the state and the feasible actions and picks
sensibly, as the greedy cook would, so LLM-Co's whole graph can be tested (and its decisions collected) without a
model: `scripted_lm(kitchen_policy)`.

It reads only what the prompt shows (LLM-Co's D(S): what both cooks hold, this cook's distances, the pots, the
`Available Actions: [...]` list) and answers in LLM-Co's form, `Explanation: ... Action: <action>`. Its rules:
serve a soup held; put an onion into a pot that still needs one (else on a shared counter, else set it down); with
a plate, take a cooked soup (or wait at a cooking one); with empty hands, fetch a plate for a soup that is cooking
or cooked and not yet covered by the partner, else an onion while pots still need some, else pick up a soup lying
on a counter; nearest first; otherwise step away if the partner finds a place it needs blocked, else wait.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_ACTIONS = re.compile(r"Available Actions: \[(.*)\]\.\s*$", re.MULTILINE)
_INVENTORY = re.compile(r"<Inventory>: I am holding (.+?)\. (\w+) is holding (.+?)\.\s*$", re.MULTILINE)
_POT = re.compile(r"(c\d+) contains (\d) out of 3 onions\. c\d+ is (?:on|off)\. soup in c\d+ is "
                  r"(cooked|still cooking|not cooking)\.")
_MINE = re.compile(r"<My location information:>(.*)$", re.MULTILINE)
_DISTANCE = re.compile(r"(\w\d+) is (\d+) units away")
_PARTNER = re.compile(r"<\w+'s location information>:(.*)$", re.MULTILINE)
_BLOCKED = re.compile(r"(\w)\d+ is blocked by")
#: The places a cook needs for what it holds: a pot for an onion or a plate, a serving spot for a soup.
_NEEDS = {"onion": "c", "plate": "c", "soup in plate": "d", "nothing": "op"}


@dataclass(frozen=True)
class _Kitchen:
    """What the policy reads from one D(S)."""

    options: list[str]
    holding: str
    partner_holding: str
    pots: dict[str, tuple[int, str]]
    distances: dict[str, int]
    partner_blocked: str  # the letters of places the partner finds blocked (by this cook)

    def distance(self, option: str) -> int:
        place = re.search(r"\b([a-z]\d+)\.$", option)
        return self.distances.get(place.group(1), 1_000) if place else 1_000

    def nearest(self, *prefixes: str, pots: set[str] | None = None) -> str | None:
        found = [o for o in self.options if o.startswith(prefixes)
                 and (pots is None or any(o.endswith(f" {c}.") for c in pots))]
        return min(found, key=self.distance, default=None)


def read_state(text: str) -> _Kitchen | None:
    """The facts of an LLM-Co state description, or None when `text` is not one."""
    actions, inventory = _ACTIONS.search(text), _INVENTORY.search(text)
    if actions is None or inventory is None:
        return None
    mine, partner = _MINE.search(text), _PARTNER.search(text)
    return _Kitchen(
        options=[o.strip() for o in actions.group(1).split(", ") if o.strip()],
        holding=inventory.group(1), partner_holding=inventory.group(3),
        pots={label: (int(onions), status) for label, onions, status in _POT.findall(text)},
        distances={label: int(d) for label, d in _DISTANCE.findall(mine.group(1))} if mine else {},
        partner_blocked="".join(_BLOCKED.findall(partner.group(1))) if partner else "")


def choose(kitchen: _Kitchen) -> tuple[str, str]:
    """(the action, why) by the rules of the module docstring."""
    pots = kitchen.pots
    filling = {c for c, (onions, status) in pots.items() if status == "not cooking" and onions < 3}
    cooked = {c for c, (_, status) in pots.items() if status == "cooked"}
    cooking = {c for c, (_, status) in pots.items() if status == "still cooking"}
    picks: list[tuple[str | None, str]]
    if kitchen.holding == "soup in plate":
        picks = [(kitchen.nearest("place soup for delivery in"), "the soup goes to the serving spot"),
                 (kitchen.nearest("place cooked soup in s"), "the partner can serve it from the shared counter")]
    elif kitchen.holding == "onion":
        picks = [(kitchen.nearest("place onion in c", pots=filling), "that pot still needs onions"),
                 (kitchen.nearest("place onion in s"), "the partner can take it to a pot"),
                 (None if filling else kitchen.nearest("place onion on k"), "no pot needs it now")]
    elif kitchen.holding == "plate":
        picks = [(kitchen.nearest("load soup on plate from", pots=cooked), "that soup is ready"),
                 (kitchen.nearest("load soup on plate from", pots=cooking), "that soup will be ready soon"),
                 (kitchen.nearest("place plate in s"), "the partner can load the soup")]
    else:
        soups = len(cooked | cooking) - (kitchen.partner_holding == "plate")
        needed = sum(3 - pots[c][0] for c in filling) - (kitchen.partner_holding == "onion")
        picks = [(kitchen.nearest("pick up cooked soup"), "a served soup scores"),
                 (kitchen.nearest("pick up plate", "pick up a plate") if soups > 0 else None, "a soup needs a plate"),
                 (kitchen.nearest("pick up onion") if needed > 0 else None, "a pot needs onions")]
    for option, why in picks:
        if option is not None:
            return option, why
    if set(kitchen.partner_blocked) & set(_NEEDS.get(kitchen.partner_holding, "")) and "move away." in kitchen.options:
        return "move away.", "I stand where my partner needs to be"
    return "wait.", "nothing useful is open to me now"


def kitchen_policy(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """A `scripted_lm` script: the reply to an LLM-Co Overcooked prompt (`Action: wait.` to anything else)."""
    kitchen = read_state(str(messages[-1].content))
    if kitchen is None:
        return "Explanation: I cannot read this state. Action: wait."
    action, why = choose(kitchen)
    return f"Explanation: {why}; {kitchen.partner_holding} is in my partner's hands. Action: {action}"


def overfetching_policy(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """A `scripted_lm` script with the round-3 kitchen planner's habit: an onion whenever its hands are empty, and
    into the pot whatever the pot's state (what fails it on cramped_room and the gated layouts)."""
    kitchen = read_state(str(messages[-1].content))
    if kitchen is None:
        return "Got it!"
    wants = {"nothing": "pick up onion from o", "onion": "place onion in c", "plate": "load soup",
             "soup in plate": "place soup"}[kitchen.holding]
    return "Action: " + next((o for o in kitchen.options if o.startswith(wants)), kitchen.options[0])
