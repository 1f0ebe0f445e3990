"""A short, ordered action list for small planners: grouped by kind, nearest first, a few of each kind.

A 270M planner reading CoELA's full list (nine options on average, up to twenty, in the environment's order and
with no distances) cannot tell the near cabinet from the far one; MHP, the expert it learns from, chooses by
walking cost. Grouping the options by kind and putting the nearest first turns the choice into "which kind of
action", the part a small model can learn; the note beside each option says how far it is, whether a partner
will likely do it first (it stands nearer, said it goes for it, or is in the object's room), whether a room
was already explored, and whether it is the usual room of a goal target not found yet (common sense a large
model brings and a 270M one lacks). The 270M planner learned to follow distances but not those partner notes, so
`drop_claimed` leaves such options off instead. Nor could it weigh a near cabinet against a far room (a ratio
of what each look may find to its walking cost): `rank_looks` orders all looks by the environment's own
value-per-step estimate, the one MHP chooses by. Like REVECA's ranking, this node can drop options, never add
one; messages are always kept.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.protocol import Affordance
from coopgraph.nodes.candidates import my_distance, target_place
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.partner_model import walk_distance
from coopgraph.nodes.registry import node

#: C-WAH's action kinds in the order the shortlist shows them: deliver, fetch, look inside, look around.
KIND_ORDER: tuple[str, ...] = ("goput", "gograb", "gocheck", "goexplore")
#: The kinds `rank_looks` orders together.
LOOK_KINDS: tuple[str, ...] = ("gocheck", "goexplore")


class ShortlistParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    per_kind: int = Field(default=3, ge=0, le=20, description="keep the N nearest options of each kind (0: keep "
                          "all); on the C-WAH test houses N = 3 keeps MHP's choice at 99.6% of its decisions")
    kind_order: list[str] = Field(default=list(KIND_ORDER), description="kinds in the order they are listed; "
                                  "other kinds follow in the environment's order")
    partner_notes: bool = Field(default=True, description="note a partner's claim on an option: it said it "
                                "is going for the target, or, free-handed, it was lately in the target's room")
    drop_claimed: bool = Field(default=False, description="leave off the grabs and checks a partner will "
                               "likely do first (nearer, going for it, in that room), unless nothing else is left")
    drop_unneeded: bool = Field(default=False, description="leave off grabs of an object class nothing more is "
                                "needed of (what is held or announced covers the goal), unless nothing else is left")
    rank_looks: bool = Field(default=False, description="list checks and explores as one group, the look worth "
                             "most per step of walking first (the environment's estimate, REVECA's relevance and "
                             "proximity in one figure), instead of checks then explores, nearest first")
    detour_note: bool = Field(default=False, description="note `on the way` on the look the environment finds "
                              "worth taking before walking back to deliver (a hand free, the look close by)")
    detour_first: bool = Field(default=False, description="list that look (the one `detour_note` marks) first, "
                               "ahead of the puts: the environment's estimate says it is the best action now")
    fill_hands: bool = Field(default=False, description="with a hand free, list grabs before puts: a needed "
                             "object within reach is worth carrying along on the walk to deliver")
    recent_steps: int = Field(default=8, ge=0, description="how many steps a partner's sighting or message "
                              "counts as `in that room`")


def _partner_nearer(belief: Any, option: Affordance, mine: float) -> str | None:
    """The name of a partner seen this step that stands nearer to the option's target than I do (grabs and
    checks only: a put is mine alone, and a room is not a race); for a grab, only a partner with a free hand."""
    if option.kind not in ("gograb", "gocheck"):
        return None
    pos, room = target_place(belief, option)
    step = getattr(belief, "step", None)
    hands = getattr(getattr(belief, "config", None), "hands", None)
    for partner in (getattr(belief, "partners", {}) or {}).values():
        if partner.last_seen_step != step or partner.position is None:
            continue
        if option.kind == "gograb" and hands is not None and len(partner.holding) >= hands:
            continue  # its hands are full: it cannot take the object before delivering
        if walk_distance(belief, partner.position, partner.room_id, pos, room) < mine:
            return partner.name
    return None


def _partner_going(belief: Any, option: Affordance) -> str | None:
    """The name of a partner that said it is going for this option's target: a grab it announced (and I did
    not announce first) or a container it said it would check."""
    if option.kind not in ("gograb", "gocheck") or option.target_id is None:
        return None
    announced = belief.announced_grabs() if hasattr(belief, "announced_grabs") else set()
    partners = getattr(belief, "partners", {}) or {}
    for agent_id, intent in (getattr(belief, "partner_intents", {}) or {}).items():
        if intent.target_id != option.target_id or intent.kind != option.kind or agent_id not in partners:
            continue
        if option.kind == "gocheck" or option.target_id in announced:
            return partners[agent_id].name
    return None


def _partner_in_room(belief: Any, option: Affordance, recent_steps: int) -> str | None:
    """The name of a free-handed partner seen or heard lately in the room of a grab's target, when I am not in
    that room: it will likely take the object first. (Rooms get no such note: on the train houses a partner's
    presence did not change how often MHP explores a room, 13% against 12%.)"""
    if option.kind != "gograb" or not hasattr(belief, "free_partner_rooms"):
        return None
    _, room = target_place(belief, option)
    return belief.free_partner_rooms(recent_steps).get(room) if room is not None else None


def partner_claim(belief: Any, option: Affordance, metres: float, params: ShortlistParams) -> str | None:
    """Why a partner will likely do this option before me, in a few words (`Alice nearer`, `Alice going for
    it`, `Alice in that room`), or None."""
    nearer = _partner_nearer(belief, option, metres)
    if nearer:
        return f"{nearer} nearer"
    if not params.partner_notes:
        return None
    going = _partner_going(belief, option)
    if going:
        return f"{going} going for it"
    there = _partner_in_room(belief, option, params.recent_steps)
    return f"{there} in that room" if there else None


def note(belief: Any, option: Affordance, metres: float, claim: str | None, on_the_way: bool = False) -> str:
    """What the planner should know about one option, in a few words: `4.0 m`, `4.0 m, Alice nearer`,
    `9.1 m, Alice going for it`, `8.0 m, Alice in that room`, `12.5 m, explored`, `16.4 m, usual room of the
    coffeetable`, `2.1 m, on the way`."""
    parts = [f"{metres:.1f} m"] if math.isfinite(metres) else []
    if claim:
        parts.append(claim)
    if on_the_way:
        parts.append("on the way")
    if option.kind == "goexplore" and option.target_id in (getattr(belief, "explored_rooms", set()) or set()):
        parts.append("explored")
    elif option.kind == "goexplore" and hasattr(belief, "unseen_targets_usually_in"):
        parts.extend(f"usual room of the {name}" for name in belief.unseen_targets_usually_in(option.target_id))
    return ", ".join(parts)


def _hand_free(belief: Any) -> bool:
    """Whether this agent can pick up one more object (unknown hands count as free)."""
    hands = getattr(getattr(belief, "config", None), "hands", None)
    return hands is None or len(getattr(belief, "holding", []) or []) < hands


def _look_ranks(belief: Any, options: list[Affordance]) -> dict[int, float]:
    """Each look option's place in the environment's value-per-step ranking (by index into `options`); empty
    when the belief offers no such ranking."""
    if not hasattr(belief, "ranked_looks"):
        return {}
    place = {id(option): float(i) for i, option in enumerate(belief.ranked_looks(options))}
    return {index: place[id(option)] for index, option in enumerate(options) if id(option) in place}


def shortlist(belief: Any, options: list[Affordance], params: ShortlistParams) -> list[tuple[Affordance, str]]:
    """The kept options with their notes, grouped by kind in `kind_order`, nearest first within a kind (the
    environment's order breaks ties), or with `rank_looks` all looks in one group, best value per step first.
    With `drop_unneeded`, grabs of what nobody needs more of are left off;
    with `drop_claimed`, options a partner will likely do first; both before the per-kind cap, and neither
    when no other action would be left."""
    kinds = list(params.kind_order)
    if params.fill_hands and _hand_free(belief) and {"gograb", "goput"} <= set(kinds):
        grab, put = kinds.index("gograb"), kinds.index("goput")
        kinds[min(grab, put)], kinds[max(grab, put)] = "gograb", "goput"
    order = {kind: i for i, kind in enumerate(kinds)}
    look_rank = _look_ranks(belief, options) if params.rank_looks else {}
    if look_rank:  # one group for all looks, at the place of the first look kind
        first = min(order.get(kind, len(order)) for kind in LOOK_KINDS)
        order.update({kind: first for kind in LOOK_KINDS})
    scored = []
    for index, option in enumerate(options):
        message = option.kind == "send_message"
        metres = math.inf if message else my_distance(belief, option)
        claim = None if message else partner_claim(belief, option, metres, params)
        within = look_rank.get(index, metres)
        scored.append(((order.get(option.kind, len(order)), within, index), option, metres, claim))
    scored.sort(key=lambda row: row[0])
    if params.drop_unneeded and hasattr(belief, "still_to_fetch"):
        still = belief.open_needs() if hasattr(belief, "open_needs") else belief.still_to_fetch()
        needed = [row for row in scored if row[1].kind != "gograb" or still[row[1].target_name] > 0]
        if any(row[1].kind != "send_message" for row in needed):
            scored = needed
    if params.drop_claimed:
        free = [row for row in scored if row[3] is None]
        if any(row[1].kind != "send_message" for row in free):
            scored = free
    wants_detour = params.detour_note or params.detour_first
    detour = belief.look_before_put(options) if wants_detour and hasattr(belief, "look_before_put") else None
    if params.detour_first and detour is not None:
        scored.sort(key=lambda row: row[1] is not detour)  # stable: everything else keeps its place
    kept: list[tuple[Affordance, str]] = []
    counts: dict[str, int] = {}
    for _, option, metres, claim in scored:
        counts[option.kind] = counts.get(option.kind, 0) + 1
        if params.per_kind and option.kind != "send_message" and counts[option.kind] > params.per_kind:
            continue
        kept.append((option, note(belief, option, metres, claim, params.detour_note and option is detour)))
    return kept


@node("planning.shortlist", reads=("options", "facts"), writes=("actions", "options", "facts"),
      params=ShortlistParams)
def shortlist_actions(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Keep the nearest few options of each kind, grouped by kind, each noted with its distance and any partner
    claim (in the facts' `option_notes`, keyed by the option's text so the note follows its option)."""
    kept = shortlist(ctx.memory.semantic, list(state.get("options") or []), ctx.params)
    facts = dict(state.get("facts") or {})
    facts["option_notes"] = {option.text: text for option, text in kept if text}
    return {"actions": [option.text for option, _ in kept], "options": [option for option, _ in kept],
            "facts": facts}
