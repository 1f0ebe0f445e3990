"""TDW-MAT's action list, in CoELA's order (`get_available_plans`), annotated with the generic fields.

1. the drafted message; 2. with a free hand, go grasp each known free target, then (no container held) each
container; 3. with both hands full, a container not yet full and a target: put the target into the container;
4. transport what is held to the bed, once the bed has been seen; 5. go to each other room; 6. explore the
current room unless it is explored `all`. Costs are frames, distances metres. A grab of what a partner said it
goes to grab carries that partner's `announced` claim. `observed` (the `observed_actions` capability) adds the
grabs `available` leaves out: free targets seen whose count is already met, and containers while one is held.
Neither offers what the belief knows at no place (taken by someone, or gone from where it was seen), nor what a
partner was last seen holding (`in_partner_hands`: the go-grab would end at once, with no world action).
"""

from __future__ import annotations

from coopgraph.envs.protocol import Affordance, AffordanceGroup, PartnerClaim, message_affordance
from coopgraph.envs.tdw_mat.belief import Known, TDWBelief

GRAB, PUT, TRANSPORT, GOTO, EXPLORE = "gograb", "putin", "transport", "goto", "explore"
#: Frames a sweep of 16 turns costs beyond walking to the room's centre.
SWEEP_FRAMES = 16 * 2


class TDWAffordances:
    """The `Affordances` of TDW-MAT: one list every method reads."""

    def available(self, belief: TDWBelief, message: str | None = None) -> list[Affordance]:
        options = [message_affordance(message)] if message is not None else []
        held = [belief.objects[i] for i in belief.hand_items if i in belief.objects]
        containers_held = [o for o in held if o.kind == "container"]
        if len(held) < belief.hands:
            options += [self._grab(belief, o) for o in belief.free_targets() if not belief.in_partner_hands(o)]
            if not containers_held:
                options += [self._grab(belief, o) for o in belief.free_containers()
                            if not belief.in_partner_hands(o)]
        targets_held = [o for o in held if o.kind == "item"]
        if len(held) == belief.hands and containers_held and targets_held:
            container, target = containers_held[0], targets_held[0]
            if len(belief.contents.get(container.id, [])) < belief.rules.container_capacity:
                options.append(Affordance(kind=PUT, group=AffordanceGroup.OTHER, target_id=target.id,
                                          target_name=target.name, target_ids=(target.id, container.id),
                                          cost=belief.rules.frames_put_in, distance=0.0,
                                          notes=(f"puts {target.label} into the held container {container.label}",)))
        if held and belief.bed_seen:
            bed = belief.objects[belief.bed_id]
            carried = tuple(belief.hand_items) + tuple(i for c in belief.contents.values() for i in c)
            options.append(Affordance(kind=TRANSPORT, group=AffordanceGroup.DELIVER, target_id=bed.id,
                                      target_name=bed.name, room_id=bed.room_id,
                                      room_name=belief.room_name(bed.room_id), target_ids=carried,
                                      cost=self._frames(belief, bed) + belief.rules.frames_drop * len(held),
                                      distance=self._metres(belief, bed)))
        for room_id, room in belief.rooms.items():
            if room_id != belief.room_id:
                metres = belief.walk_distance(belief.position, belief.room_id, room.center, room_id)
                options.append(Affordance(kind=GOTO, group=AffordanceGroup.EXPLORE, target_id=room_id,
                                          target_name=room.name, room_id=room_id, room_name=room.name,
                                          cost=round(metres / belief.walk_speed), distance=round(metres, 2)))
        if belief.explored[belief.room_id] != "all":
            room = belief.rooms[belief.room_id]
            metres = belief.walk_distance(belief.position, belief.room_id, room.center, room.id)
            options.append(Affordance(kind=EXPLORE, group=AffordanceGroup.EXPLORE, target_id=room.id,
                                      target_name=room.name, room_id=room.id, room_name=room.name,
                                      cost=round(metres / belief.walk_speed) + SWEEP_FRAMES, distance=round(metres, 2)))
        return options

    def observed(self, belief: TDWBelief) -> list[Affordance]:
        """Grabs of every free thing seen that `available` leaves out (REVECA's candidate pool), none with both
        hands full: targets no predicate still needs, and containers while a container is held."""
        if len(belief.hand_items) >= belief.hands:
            return []
        listed = {o.id for o in belief.free_targets()}
        if not any(belief.objects[i].kind == "container" for i in belief.hand_items if i in belief.objects):
            listed |= {o.id for o in belief.free_containers()}
        extra = [o for o in sorted(belief.objects.values(), key=lambda o: o.id)
                 if o.kind in ("item", "container") and o.id not in listed and o.held_by is None and o.inside is None
                 and o.room_id is not None and o.id not in belief.transported
                 and not belief.in_goal_zone(o.position, o.room_id) and not belief.in_partner_hands(o)]
        return [self._grab(belief, o) for o in extra]

    @staticmethod
    def _metres(belief: TDWBelief, obj: Known) -> float:
        return round(belief.walk_distance(belief.position, belief.room_id, obj.position, obj.room_id), 2)

    @classmethod
    def _frames(cls, belief: TDWBelief, obj: Known) -> float:
        return round(cls._metres(belief, obj) / belief.walk_speed)

    @classmethod
    def _grab(cls, belief: TDWBelief, obj: Known) -> Affordance:
        claims = tuple(PartnerClaim(partner=belief.partners[a].name if a in belief.partners else a, reason="announced")
                       for a, intent in sorted(belief.partner_intents.items())
                       if intent.kind == GRAB and intent.target_id == obj.id)
        return Affordance(kind=GRAB, group=AffordanceGroup.FETCH, target_id=obj.id, target_name=obj.name,
                          room_id=obj.room_id, room_name=belief.room_name(obj.room_id), target_ids=(obj.id,),
                          cost=cls._frames(belief, obj) + belief.rules.frames_grasp,
                          distance=cls._metres(belief, obj), claims=claims)
