"""The toyhouse's own estimates, in one place: which partner is likely to do a thing first, and what a look is
worth. The affordances annotate options with them and the expert chooses by them."""

from __future__ import annotations

from coopgraph.envs.protocol import PartnerClaim
from coopgraph.testing.toyhouse.belief import HouseBelief, Known


def _announced_first(belief: HouseBelief, agent_id: str, target_id: int) -> bool:
    """A partner announced this target, and not after this agent announced the same one."""
    intent = belief.partner_intents.get(agent_id)
    if intent is None or intent.target_id != target_id:
        return False
    mine = belief.intent
    return not (mine is not None and mine.target_id == target_id
                and (mine.step, belief.agent_id) < (intent.step, agent_id))


def claims(belief: HouseBelief, target_id: int, thing: Known | None = None) -> tuple[PartnerClaim, ...]:
    """Partners who said they go for `target_id`, then free-handed partners in sight standing nearer to `thing`
    (ties go to the smaller agent id)."""
    found = [PartnerClaim(partner=p.name, reason="announced") for a, p in belief.partners.items()
             if _announced_first(belief, a, target_id)]
    if thing is not None and thing.position is not None and thing.room_id == belief.room_id:
        mine = belief.walk_distance(belief.position, belief.room_id, thing.position, thing.room_id)
        for agent_id, partner in belief.partners.items():
            if (partner.last_seen_step == belief.step and partner.position is not None
                    and len(partner.holding) < belief.hands and all(c.partner != partner.name for c in found)):
                theirs = belief.walk_distance(partner.position, partner.room_id, thing.position, thing.room_id)
                if (theirs, agent_id) < (mine, belief.agent_id):
                    found.append(PartnerClaim(partner=partner.name, reason="nearer"))
    return tuple(found)


def unlocated_needs(belief: HouseBelief) -> int:
    """Goal items still to fetch that no known, free item accounts for: what a look may find."""
    still = belief.still_to_fetch()
    for obj in belief.goal_objects():
        if still[obj.name] > 0:
            still[obj.name] -= 1
    return sum(n for n in still.values() if n > 0)


def unknown_targets(belief: HouseBelief) -> int:
    """Goal targets (where things go) not located yet."""
    return len({p.target_id for p in belief.goal
                if (t := belief.objects.get(p.target_id)) is None or t.room_id is None})


def look_value(belief: HouseBelief, *, room_id: int | None = None, container_id: int | None = None) -> float:
    """Expected needed things a look finds: unlocated needs shared evenly over the places not looked at yet
    (rooms not visited, containers not opened); a room also shares the goal targets not located yet. A room
    already visited was seen whole, so looking again finds nothing the belief does not already hold."""
    places = len(belief.unexplored_rooms()) + len(belief.closed_containers())
    share = unlocated_needs(belief) / max(1, places)
    if container_id is not None:
        return round(share, 3)
    if room_id is None or room_id in belief.explored_rooms:
        return 0.0
    return round(share + unknown_targets(belief) / max(1, len(belief.unexplored_rooms())), 3)
