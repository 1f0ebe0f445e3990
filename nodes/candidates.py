"""REVECA's first planning step: keep the K best of the actions open to the agent, by relevance and proximity.

The faithful order is the reference code's (`rank_reference`): each task's efficiency is 1/(d+1) plus a bonus
per relevance level (1000, 100, 10, 1), d the straight-line distance, and the tasks I am closer to than my
partner come first at any level. The order below (`order: relevance_first`) is the `reveca-rules` variant's.

Proximity compares my distance to a target (the world's `Affordance.distance`) with each partner's estimated
distance (from its last sighting, interpolated or extrapolated, by the world's `spatial` geometry), so a goal
object my partner is about to reach ranks below one only I am close to. The LLM then chooses among these K with
a short chain of thought (`planning.choose_action` with the `candidates/choose` prompt); the candidates' notes
(level, distances) are shown next to each option, keyed by its text so they follow it when the chooser reorders
the list.
Actions themselves still come only from the environment: its list, plus (`pool: observed`) the fetches of every
item seen that its `observed` affordances offer; ranking never invents one, and a message never adds one. The
node that runs this ranking, `planning.rank_candidates`, is in planning.py.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Protocol, cast

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import Belief, Objects, Partners, Rooms, Spatial
from coopgraph.envs.protocol import Affordance, AffordanceGroup, Point
from coopgraph.memory.levels import LEVEL_SETS, in_set
from coopgraph.nodes.families.relevance import object_level
from coopgraph.nodes.partner_model import estimate
from coopgraph.nodes.reveca_notes import RANK, RevecaNotes


class RankingWorld(Belief, Objects, Rooms, Spatial, Partners, Protocol):
    """What the ranking reads of a belief: known objects, rooms explored, walking distances, partners."""


class CandidateParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    k: int = Field(default=3, ge=1, le=12, description="candidate plans handed to the LLM (the paper's K)")
    use_relevance: bool = Field(default=True, description="rank by relevance first; off: proximity only")
    spatial: bool = Field(default=True, description="rank by distance and show it; off: no spatial information")
    partner_info: bool = Field(default=True, description="compare with partners' estimated distances")
    order: Literal["reference", "relevance_first"] = Field(
        default="relevance_first", description="reference: REVECA's code (efficiency 1/(d+1) + 1000/100/10/1 by level, "
        "straight-line d; tasks I am closer to than my partner first at any level; 'none' kept as fillers); "
        "relevance_first: level, then partner-closer, then walking distance, 'none' dropped (reveca-rules; the "
        "default here, which the decision data's `prerank` records; `reveca` sets reference)")
    pool: Literal["observed", "listed"] = Field(
        default="listed", description="observed: the listed actions plus fetches of every item seen (the world's "
        "`observed_actions`), so relevance, not the list, keeps dummies out (`reveca`); listed: the environment's "
        "list only")
    levels: Literal[3, 4, 5] = Field(default=4, description="relevance levels R (memory/levels.py), for the bonus")


class Candidate(BaseModel):
    """One ranked option and why it ranks where it does."""

    text: str
    relevance: str
    efficiency: float | None = None
    my_distance: float | None = None
    partner_distances: dict[str, float] = Field(default_factory=dict)
    partner_closer: bool = False
    note: str = ""


def target_place(belief: Objects, option: Affordance) -> tuple[Point | None, int | None]:
    """Where an option takes an agent: the room itself for exploring (its centre stands in), else its target's
    known place, else the room the world says it is in."""
    if option.group == AffordanceGroup.EXPLORE:
        return None, option.room_id
    obj = belief.objects.get(option.target_id) if option.target_id is not None else None
    if obj is not None and obj.room_id is not None:
        return obj.position, obj.room_id
    return None, option.room_id


def distance_of(option: Affordance) -> float:
    """How far the world says an option's target is from me (inf when it does not say)."""
    return option.distance if option.distance is not None else math.inf


def distance_notes(options: list[Affordance]) -> dict[str, str]:
    """"N.N m" per option whose distance the world gives, keyed by the option's text (a decimal, so near ties
    show)."""
    notes = {}
    for option in options:
        metres = distance_of(option)
        if math.isfinite(metres):
            notes[option.text] = f"{metres:.1f} m"
    return notes


def option_level(belief: RankingWorld, notes: RevecaNotes, option: Affordance) -> str:
    """How much an option serves the goal: a delivery is strong, a room unexplored medium (explored: low); the
    rest follows its target."""
    if option.group == AffordanceGroup.DELIVER:
        return "strong"
    if option.group == AffordanceGroup.EXPLORE:
        return "low" if option.target_id in belief.explored_rooms else "medium"
    obj = belief.objects.get(option.target_id) if option.target_id is not None else None
    if obj is None:
        return "low"
    return notes.relevance.get(obj.id) or object_level(obj, belief)


def _discarded(belief: RankingWorld, notes: RevecaNotes, option: Affordance) -> bool:
    """A target a partner confirmed it changed stays out until it is seen again."""
    when = notes.discarded.get(option.target_id) if option.target_id is not None else None
    if when is None:
        return False
    obj = belief.objects.get(option.target_id) if option.target_id is not None else None
    return obj is None or obj.last_seen_step <= when


def level_bonus(level: str, levels: tuple[str, ...]) -> float:
    """The reference code's weight of a level: 1000, 100, 10, 1 for strong, medium, low, none (a power of ten per
    place in the level set, so R=3 and R=5 keep "none" at 1 and each level above the next)."""
    if level not in levels:
        return 1.0
    return float(10 ** (len(levels) - 1 - levels.index(level)))


def straight_distance(a: Point | None, b: Point | None) -> float:
    """The reference's distance: straight line on the floor plane (x/z there, our two coordinates); inf if unknown."""
    if a is None or b is None:
        return math.inf
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _place_point(world: RankingWorld, option: Affordance) -> Point | None:
    """The option's target point; its room's centre where the point is unknown (as the reference does)."""
    pos, room = target_place(world, option)
    if pos is None and room is not None and room in world.rooms:
        return world.rooms[room].center
    return pos


def rank_reference(belief: Any, notes: RevecaNotes, options: list[Affordance], step: int,
                   params: CandidateParams) -> list[tuple[Affordance, Candidate]]:
    """The reference code's order (`LLM_agent.py` L476-578): efficiency = 1/(d+1) + the level's bonus, d the
    straight-line distance; the tasks I am closer to than every partner come first (at any level), best
    efficiency first, then the rest; "none" tasks stay, ranking last on their side (fillers). A delivery is
    mine alone; discarded targets stay out until seen again."""
    world = cast(RankingWorld, belief)
    levels = LEVEL_SETS[params.levels]
    partners = sorted(world.partners) if params.partner_info else []
    names = {a: world.partners[a].name for a in partners}
    guesses = {a: estimate(notes, belief, a, step) for a in partners}
    scored = []
    for index, option in enumerate(options):
        if _discarded(world, notes, option):
            continue
        level = in_set(option_level(world, notes, option), levels) if params.use_relevance else "unrated"
        bonus = level_bonus(level, levels) if params.use_relevance else 1.0
        candidate = Candidate(text=option.text, relevance=level)
        mine_first = True
        if params.spatial:
            target = _place_point(world, option)
            mine = straight_distance(world.position, target)
            candidate.my_distance = mine if math.isfinite(mine) else None
            for agent_id, guess in guesses.items():
                if option.group == AffordanceGroup.DELIVER:
                    continue  # only I can deliver what I hold
                theirs = straight_distance(guess.position, target)
                if math.isfinite(theirs):
                    candidate.partner_distances[agent_id] = round(theirs, 1)
            closest = min(candidate.partner_distances.values(), default=math.inf)
            candidate.partner_closer = closest <= mine
            mine_first = not candidate.partner_closer
            candidate.efficiency = bonus + (1 / (mine + 1) if math.isfinite(mine) else 0.0)
        else:
            candidate.efficiency = bonus
        candidate.note = _note(candidate, names)
        scored.append(((not mine_first, -candidate.efficiency, index), option, candidate))
    scored.sort(key=lambda row: row[0])
    return [(option, candidate) for _, option, candidate in scored]


def rank(belief: Any, notes: RevecaNotes, options: list[Affordance], step: int,
         params: CandidateParams) -> list[tuple[Affordance, Candidate]]:
    """Score every option and sort it by `params.order`: the reference's (`rank_reference`), or relevance first
    (drop irrelevant or discarded ones; then who is closer, then my walking distance, the environment's order
    breaking ties)."""
    if params.order == "reference":
        return rank_reference(belief, notes, options, step, params)
    world = cast(RankingWorld, belief)
    partners = sorted(world.partners) if params.partner_info else []
    names = {a: world.partners[a].name for a in partners}
    guesses = {a: estimate(notes, belief, a, step) for a in partners}
    scored = []
    for index, option in enumerate(options):
        level = option_level(world, notes, option) if params.use_relevance else "unrated"
        if (params.use_relevance and level == "none") or _discarded(world, notes, option):
            continue
        candidate = Candidate(text=option.text, relevance=level)
        if params.spatial:
            pos, room = target_place(world, option)
            mine = distance_of(option)
            candidate.my_distance = mine if math.isfinite(mine) else None
            for agent_id, guess in guesses.items():
                if guess.position is None or option.group == AffordanceGroup.DELIVER:
                    continue  # only I can deliver what I hold
                theirs = world.walk_distance(guess.position, guess.room_id, pos, room)
                if math.isfinite(theirs):
                    candidate.partner_distances[agent_id] = round(theirs, 1)
            closest = min(candidate.partner_distances.values(), default=math.inf)
            candidate.partner_closer = closest < mine
        candidate.note = _note(candidate, names)
        key = (
            -RANK.get(level, 0),
            candidate.partner_closer,
            candidate.my_distance if candidate.my_distance is not None else math.inf,
            index,
        ) if params.spatial else (-RANK.get(level, 0), index)
        scored.append((key, option, candidate))
    scored.sort(key=lambda row: row[0])
    return [(option, candidate) for _, option, candidate in scored]


def _note(candidate: Candidate, names: dict[str, str]) -> str:
    parts = [] if candidate.relevance == "unrated" else [candidate.relevance]
    if candidate.my_distance is not None:
        spatial = f"me {candidate.my_distance:.0f} m"
        spatial += "".join(f", {names[a]} ~{d:.0f} m" for a, d in candidate.partner_distances.items())
        parts.append(spatial)
    return "; ".join(parts)
