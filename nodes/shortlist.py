"""A short, ordered action list for small planners: grouped by what each option does, nearest first, a few of each.

A 270M planner reading CoELA's full list (nine options on average, up to twenty, in the environment's order and
with no distances) cannot tell the near cabinet from the far one; MHP, the expert it learns from, chooses by
walking cost. Grouping the options (deliver, fetch, inspect, explore) and putting the nearest first turns the
choice into "which kind of action", the part a small model can learn; the note beside each option says how far it
is, whether a partner will likely do it first (it stands nearer, said it goes for it, or is in the object's room),
and the world's own notes (in C-WAH: a room already explored, or the usual room of a goal target not found yet,
common sense a large model brings and a 270M one lacks). The 270M planner learned to follow distances but not
those partner notes, so `drop_claimed` leaves such options off instead. Nor could it weigh a near cabinet against
a far room (a ratio of what each look may find to its walking cost): `rank_looks` orders all looks by the world's
own value and cost, the figures MHP chooses by. Everything here reads the generic fields the world fills on each
affordance (`group`, `distance`, `cost`, `value`, `claims`, `surplus`, `detour`, `notes`), never an action kind.
Like REVECA's ranking, the `planning.shortlist` node (in planning.py) that runs this can drop options, never add
one; messages are always kept.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import Objects
from coopgraph.envs.protocol import Affordance, AffordanceGroup
from coopgraph.nodes.candidates import distance_of

#: The groups in the order the shortlist shows them: deliver, fetch, look inside, look around.
GROUP_ORDER: tuple[AffordanceGroup, ...] = (AffordanceGroup.DELIVER, AffordanceGroup.FETCH,
                                           AffordanceGroup.INSPECT, AffordanceGroup.EXPLORE)
#: The groups `rank_looks` orders together.
LOOK_GROUPS: tuple[AffordanceGroup, ...] = (AffordanceGroup.INSPECT, AffordanceGroup.EXPLORE)


class ShortlistParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    per_kind: int = Field(default=3, ge=0, le=20, description="keep the N nearest options of each group (0: keep "
                          "all); on the C-WAH test houses N = 3 keeps MHP's choice at 99.6% of its decisions")
    group_order: list[AffordanceGroup] = Field(default=list(GROUP_ORDER), description="groups in the order they "
                                               "are listed; other groups follow in the environment's order")
    partner_notes: bool = Field(default=True, description="note a partner's claim on an option: it said it "
                                "is going for the target, or it was lately in the target's room (a partner "
                                "standing nearer is always noted)")
    drop_claimed: bool = Field(default=False, description="leave off the options a partner will likely do first "
                               "(nearer, going for it, in that room), unless nothing else is left")
    drop_unneeded: bool = Field(default=False, description="leave off the fetches the world marks `surplus` "
                                "(what is held, announced or likely taken covers the goal), unless nothing else "
                                "is left")
    rank_looks: bool = Field(default=False, description="list inspections and explorations as one group, the look "
                             "worth most per unit of cost first (the world's `value` and `cost`, REVECA's relevance "
                             "and proximity in one figure), instead of inspections then explorations, nearest first")
    detour_note: bool = Field(default=False, description="note `on the way` on the best look when the world marks "
                              "it a `detour`: worth taking before walking back to deliver")
    detour_first: bool = Field(default=False, description="list that look (the one `detour_note` marks) first, "
                               "ahead of the deliveries: the world's estimate says it is the best action now")
    fill_hands: bool = Field(default=False, description="with a hand free, list fetches before deliveries: a "
                             "needed object within reach is worth carrying along on the walk to deliver")


def partner_claim(option: Affordance, params: ShortlistParams) -> str | None:
    """Why a partner will likely do this option before me, in a few words (`Alice nearer`, `Alice going for
    it`, `Alice in that room`), or None: the world's strongest claim that counts (a partner standing nearer
    always does; the others with `partner_notes`)."""
    for claim in option.claims:
        if claim.reason == "nearer" or params.partner_notes:
            return claim.text
    return None


def note(option: Affordance, metres: float, claim: str | None, on_the_way: bool = False) -> str:
    """What the planner should know about one option, in a few words: `4.0 m`, `4.0 m, Alice nearer`,
    `9.1 m, Alice going for it`, `8.0 m, Alice in that room`, `12.5 m, explored`, `16.4 m, usual room of the
    coffeetable`, `2.1 m, on the way` (the world's own notes come last)."""
    parts = [f"{metres:.1f} m"] if math.isfinite(metres) else []
    if claim:
        parts.append(claim)
    if on_the_way:
        parts.append("on the way")
    parts.extend(option.notes)
    return ", ".join(parts)


def hand_free(belief: Objects) -> bool:
    """Whether this agent can pick up one more thing."""
    return len(belief.holding) < belief.hands


def cost_per_value(cost: float, value: float) -> float:
    """What a look costs per unit of what it is worth (lower is better; a worthless look costs a lot)."""
    return cost / max(value, 1e-3)


def look_ranks(options: list[Affordance]) -> dict[int, float]:
    """Each look's place (by index into `options`) when the looks the world values are ordered by cost per unit
    of value, lowest first (ties keep the given order); empty when the world values none."""
    looks = [(cost_per_value(option.cost, option.value), index) for index, option in enumerate(options)
             if option.group in LOOK_GROUPS and option.value is not None and option.cost is not None]
    looks.sort(key=lambda row: row[0])  # stable: ties keep the given order
    return {index: float(place) for place, (_, index) in enumerate(looks)}


def best_detour(options: list[Affordance]) -> Affordance | None:
    """The best-ranked look among `options` when the world marks it worth taking on the way to a delivery."""
    ranks = look_ranks(options)
    best = min(ranks, key=ranks.__getitem__, default=None)
    return options[best] if best is not None and options[best].detour else None


def shortlist(options: list[Affordance], params: ShortlistParams,
              free_hand: bool = True) -> list[tuple[Affordance, str]]:
    """The kept options with their notes, grouped in `group_order`, nearest first within a group (the
    environment's order breaks ties), or with `rank_looks` all looks in one group, best value per cost first.
    With `drop_unneeded`, surplus fetches are left off; with `drop_claimed`, options a partner will likely do
    first; both before the per-group cap, and neither when no other action would be left. `free_hand`: whether
    this agent can carry one more thing (for `fill_hands`)."""
    groups = list(params.group_order)
    fetch, deliver = AffordanceGroup.FETCH, AffordanceGroup.DELIVER
    if params.fill_hands and free_hand and {fetch, deliver} <= set(groups):
        first, second = sorted((groups.index(fetch), groups.index(deliver)))
        groups[first], groups[second] = fetch, deliver
    order: dict[str, int] = {group: i for i, group in enumerate(groups)}
    look_rank = look_ranks(options) if params.rank_looks else {}
    if look_rank:  # one group for all looks, at the place of the first look group
        first_look = min(order.get(group, len(order)) for group in LOOK_GROUPS)
        order.update({group: first_look for group in LOOK_GROUPS})
    scored = []
    for index, option in enumerate(options):
        metres = distance_of(option)
        claim = partner_claim(option, params)
        within = look_rank.get(index, metres)
        scored.append(((order.get(option.group, len(order)), within, index), option, metres, claim))
    scored.sort(key=lambda row: row[0])
    if params.drop_unneeded:
        needed = [row for row in scored if not row[1].surplus]
        if any(not _is_message(row[1]) for row in needed):
            scored = needed
    if params.drop_claimed:
        free = [row for row in scored if row[3] is None]
        if any(not _is_message(row[1]) for row in free):
            scored = free
    detour = best_detour(options) if params.detour_note or params.detour_first else None
    if params.detour_first and detour is not None:
        scored.sort(key=lambda row: row[1] is not detour)  # stable: everything else keeps its place
    kept: list[tuple[Affordance, str]] = []
    counts: dict[str, int] = {}
    for _, option, metres, claim in scored:
        counts[option.group] = counts.get(option.group, 0) + 1
        if params.per_kind and not _is_message(option) and counts[option.group] > params.per_kind:
            continue
        kept.append((option, note(option, metres, claim, params.detour_note and option is detour)))
    return kept


def _is_message(option: Affordance) -> bool:
    return option.group == AffordanceGroup.COMMUNICATE
