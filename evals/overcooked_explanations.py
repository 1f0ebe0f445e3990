"""LLM-Co's `Explanation:` for the greedy cook's choice, so a distilled planner can learn the published reply whole.

LLM-Co asks for "a short reason for the action, including what you expect <partner> to do next" before the action.
The greedy cook's reason is the rule it followed; the sentence here names that rule's facts as the state text shows
them (what is held, how full a pot is, what is cooking) and expects of the partner what the greedy cook would do
with what the partner holds. It reads only the state text and the chosen action, so decision points recorded before
it existed (the DAgger rounds' files) are explained the same way as new ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_HELD = re.compile(r"<Inventory>: I am holding (?P<mine>[^.]+)\. (?P<partner>\S+) is holding (?P<theirs>[^.]+)\.")
_POT = re.compile(r"(?P<pot>c\d+) contains (?P<onions>\d) out of 3 onions\. (?P=pot) is o(?:n|ff)\. "
                  r"soup in (?P=pot) is (?P<status>cooked|still cooking|not cooking)\.")
#: What the greedy cook does next with what it holds: what LLM-Co's reply expects of a partner playing sensibly.
_PARTNER_NEXT = {"nothing": "to fetch what the pots need next", "onion": "to put the onion in a pot",
                 "plate": "to load a soup onto the plate", "soup in plate": "to serve the soup"}

Reason = Callable[[re.Match[str], dict[str, Any]], str]


def _pots(progress: str) -> dict[str, tuple[int, str]]:
    return {m["pot"]: (int(m["onions"]), m["status"]) for m in _POT.finditer(progress)}


def _filling(state: dict[str, Any]) -> tuple[str, int] | None:
    """The fullest pot that still takes onions (the one the greedy cook's onions go to), if any."""
    open_pots = [(pot, n) for pot, (n, status) in state["pots"].items() if status == "not cooking" and n < 3]
    return max(open_pots, key=lambda p: p[1], default=None)


def _cooking(state: dict[str, Any]) -> tuple[str, str] | None:
    """A pot whose soup is cooked (first) or cooking: the one a plate is for."""
    ranked = sorted(((status != "cooked", pot), status) for pot, (_, status) in state["pots"].items()
                    if status != "not cooking")
    return (ranked[0][0][1], ranked[0][1]) if ranked else None


def _fetch_onion(m: re.Match[str], state: dict[str, Any]) -> str:
    pot = _filling(state)
    need = f"pot {pot[0]} has {pot[1]} of 3 onions" if pot else "the pots will need onions"
    return f"{need}, so I fetch an onion from {m['place']}"


def _fetch_plate(m: re.Match[str], state: dict[str, Any]) -> str:
    pot = _cooking(state)
    need = f"the soup in {pot[0]} is {pot[1]} and will need a plate" if pot else "a soup will need a plate"
    return f"{need}, so I take one from {m['place']}"


def _fill(m: re.Match[str], state: dict[str, Any]) -> str:
    onions, status = state["pots"].get(m["place"], (0, "not cooking"))
    return (f"I hold an onion and {m['place']} has {onions} of 3 onions" if status == "not cooking"
            else f"I hold an onion and put it in {m['place']}")


def _load(m: re.Match[str], state: dict[str, Any]) -> str:
    _, status = state["pots"].get(m["place"], (0, "not cooking"))
    return f"I hold a plate and the soup in {m['place']} is {status}"


def _open(m: re.Match[str], state: dict[str, Any]) -> str:
    if state["theirs"] == "soup in plate":
        return f"{state['partner']} holds a soup behind {m['place']}, so I open it"
    return f"{m['place']} shuts me away from what I need, so I open it"


def _full_pots(state: dict[str, Any]) -> str:
    """The pots that take no onion now, as the state names them (`pot c0 is full`, `pots c0 and c1 are full`)."""
    full = [pot for pot, (n, status) in state["pots"].items() if n >= 3 or status != "not cooking"]
    return f"pot {full[0]} is full" if len(full) == 1 else f"pots {' and '.join(full)} are full"


def _set_down(m: re.Match[str], state: dict[str, Any]) -> str:
    """Why the greedy cook sets a thing down: for an onion, that no pot takes one (the fact a planner holding an
    onion by a cooking pot must read); for a plate, that no soup is cooking yet."""
    if state["mine"] == "onion" and state["pots"] and _filling(state) is None:
        return f"{_full_pots(state)}, so I set the onion down on {m['place']}"
    if state["mine"] == "plate" and state["pots"] and _cooking(state) is None:
        return f"no soup is cooking yet, so I set the plate down on {m['place']}"
    return f"I cannot use the {'soup' if state['mine'] == 'soup in plate' else m['what']} now, so I set it down on " \
           f"{m['place']}"


def _wait(m: re.Match[str], state: dict[str, Any]) -> str:
    if state["mine"] == "onion" and state["pots"] and _filling(state) is None:
        return f"{_full_pots(state)} and no counter is free, so I wait with the onion"
    if state["theirs"] in ("onion", "plate"):
        return f"{state['partner']} already carries the {state['theirs']} the pots need, and nothing else is open to me"
    return "nothing useful is open to me right now"


#: The chosen action's pattern and the reason the greedy cook's rule gives for it, first match wins.
_REASONS: list[tuple[re.Pattern[str], Reason]] = [
    (re.compile(r"pick up onion from (?P<place>\w+)\."), _fetch_onion),
    (re.compile(r"pick up (?:a )?plate from (?P<place>\w+)\."), _fetch_plate),
    (re.compile(r"pick up cooked soup from (?P<place>\w+)\."),
     lambda m, s: f"a cooked soup lies on {m['place']}, so I take it to serve"),
    (re.compile(r"place onion in (?P<place>c\d+)\."), _fill),
    (re.compile(r"place (?:cooked )?(?P<what>onion|plate|soup) in (?P<place>s\d+)\."),
     lambda m, s: f"I cannot use the {m['what']} on my side, so I pass it over {m['place']}"),
    (re.compile(r"place (?P<what>onion|plate) on (?P<place>k\d+)\."), _set_down),
    (re.compile(r"load soup on plate from (?P<place>c\d+)\."), _load),
    (re.compile(r"place soup for delivery in (?P<place>d\d+)\."),
     lambda m, s: f"I hold a soup, so I serve it at {m['place']}"),
    (re.compile(r"open (?P<place>g\d+)\."), _open),
    (re.compile(r"move away\."), lambda m, s: f"{s['partner']} needs the place where I stand, so I step aside"),
    (re.compile(r"wait\."), _wait),
]


def explain(progress: str, action: str) -> str:
    """The explanation LLM-Co's reply would give for `action` in the state `progress` (one sentence, no label)."""
    held = _HELD.search(progress)
    partner, mine, theirs = (held["partner"], held["mine"], held["theirs"]) if held else ("my teammate", "", "")
    state = {"pots": _pots(progress), "partner": partner, "mine": mine, "theirs": theirs}
    reason = next((why(m, state) for pattern, why in _REASONS if (m := pattern.fullmatch(action))),
                  "it is the most useful action open to me")
    expected = _PARTNER_NEXT.get(theirs, "to carry on")
    return f"{reason[0].upper()}{reason[1:]}; I expect {partner} {expected}."


def explain_decision(decision: dict[str, Any], index: int) -> str:
    """The explanation for option `index` of a recorded Overcooked decision point."""
    return explain(decision["facts"]["progress"], decision["options"][index])
