"""The toyhouse action list, built from an agent's belief and annotated with the world's own figures.

Kinds: `[deliver] <target> (id)` brings what is held to a surface or container the goal names,
`[fetch] <item> (id)` picks up a needed item (opening its container on the way), `[open] <container> (id)`
looks inside a closed container, `[visit] <room> (id)` walks into a room (it is seen whole on entering),
`[set_down] <item> (id)` frees the hand of an item nothing needs. With the hand full, only deliveries, visits
and setting down are offered. Costs are ticks, distances cells. Opens and visits carry no `value`: the toyhouse
publishes no estimate of what a look finds (it does not declare `look_values`; its expert computes
`estimates.look_value` itself), so nodes that would rank looks by value list them nearest first instead.
"""

from __future__ import annotations

from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance
from coopgraph.testing.toyhouse import estimates
from coopgraph.testing.toyhouse.belief import HouseBelief, Known


class HouseAffordances:
    """Implements the `Affordances` protocol for the toyhouse."""

    def available(self, belief: HouseBelief, message: str | None = None) -> list[Affordance]:
        """Deliveries, fetches, opens, visits, then set-downs; `message` (a drafted text) comes first."""
        options = [message_affordance(message)] if message else []
        options += self._deliveries(belief)
        if len(belief.holding) < belief.hands:
            options += self._fetches(belief) + self._opens(belief)
        options += self._visits(belief) + self._set_downs(belief)
        return options

    def observed(self, belief: HouseBelief) -> list[Affordance]:
        """`observed_actions`: fetches of the free items seen that `available` leaves out (nothing needs them; none
        already in place),
        for REVECA's candidate pool; none with the hand full. `available` itself is unchanged."""
        if len(belief.holding) >= belief.hands:
            return []
        listed = {obj.id for obj in belief.goal_objects()}
        placed = {(p.object_name, p.target_id) for p in belief.goal}  # in place: never offered
        options = []
        for obj in sorted(belief.objects.values(), key=lambda o: o.id):
            if obj.kind != "item" or obj.room_id is None or obj.held_by is not None or obj.id in listed:
                continue
            if (obj.name, obj.on) in placed or (obj.name, obj.inside) in placed:
                continue
            holder = belief.objects.get(obj.inside) if obj.inside is not None else None
            closed = holder is not None and not holder.is_open and holder.id not in belief.checked_containers
            cells = self._walk(belief, obj)
            options.append(Affordance(
                kind="fetch", group=AffordanceGroup.FETCH, target_id=obj.id, target_name=obj.name,
                room_id=obj.room_id, room_name=belief.room_name(obj.room_id), target_ids=(obj.id,),
                via_id=holder.id if closed and holder is not None else None,
                cost=cells + 1 + (belief.rules.open_ticks if closed else 0), distance=cells, surplus=True,
                notes=(belief.whereabouts(obj),),
            ))
        return options

    @staticmethod
    def _walk(belief: HouseBelief, thing: Known) -> float:
        return belief.cells_to(thing)

    def _deliveries(self, belief: HouseBelief) -> list[Affordance]:
        by_target: dict[int, list[int]] = {}
        for object_id in belief.holding:
            predicate = belief.predicate_for(belief.objects[object_id]) if object_id in belief.objects else None
            if predicate is not None:
                by_target.setdefault(predicate.target_id, []).append(object_id)
        options = []
        for target_id, held in sorted(by_target.items()):
            target = belief.objects.get(target_id)
            if target is None or target.room_id is None:
                continue  # where it goes is not known yet: visit rooms first
            closed = target.kind == "container" and not target.is_open
            cells = self._walk(belief, target)
            options.append(Affordance(
                kind="deliver", group=AffordanceGroup.DELIVER, target_id=target_id, target_name=target.name,
                room_id=target.room_id, room_name=belief.room_name(target.room_id), target_ids=tuple(held),
                cost=cells + len(held) + (belief.rules.open_ticks if closed else 0), distance=cells, repeatable=True,
                notes=(f"puts {belief.labels(held)}",) + (("closed: opens it first",) if closed else ()),
            ))
        return options

    def _fetches(self, belief: HouseBelief) -> list[Affordance]:
        still = belief.still_to_fetch()
        options = []
        for obj in belief.goal_objects():
            holder = belief.objects.get(obj.inside) if obj.inside is not None else None
            closed = holder is not None and not holder.is_open and holder.id not in belief.checked_containers
            cells = self._walk(belief, obj)
            where = belief.whereabouts(obj) + (", closed: opens it on the way" if closed else "")
            claims = estimates.claims(belief, obj.id, obj)
            options.append(Affordance(
                kind="fetch", group=AffordanceGroup.FETCH, target_id=obj.id, target_name=obj.name,
                room_id=obj.room_id, room_name=belief.room_name(obj.room_id), target_ids=(obj.id,),
                via_id=holder.id if closed and holder is not None else None,
                cost=cells + 1 + (belief.rules.open_ticks if closed else 0), distance=cells, claims=claims,
                surplus=still[obj.name] <= 0,
                notes=(where,) + (("told by a partner",) if obj.source == "told" else ()),
            ))
        return options

    @staticmethod
    def _opens(belief: HouseBelief) -> list[Affordance]:
        options = []
        for container in belief.closed_containers():
            cells = belief.cells_to(container)
            options.append(Affordance(
                kind="open", group=AffordanceGroup.INSPECT, target_id=container.id, target_name=container.name,
                room_id=container.room_id, room_name=belief.room_name(container.room_id),
                target_ids=(container.id,), cost=cells + belief.rules.open_ticks, distance=cells,
                claims=estimates.claims(belief, container.id), notes=("contents unknown",),
            ))
        return options

    @staticmethod
    def _visits(belief: HouseBelief) -> list[Affordance]:
        rooms = [r for r in belief.unexplored_rooms() if r != belief.room_id]
        if not rooms:  # every room seen once: allow going back
            rooms = [r for r in sorted(belief.rooms) if r != belief.room_id]
        options = []
        for room_id in rooms:
            cells = belief.cells_to_room(room_id)
            seen = belief.room_visits.get(room_id)
            options.append(Affordance(
                kind="visit", group=AffordanceGroup.EXPLORE, target_id=room_id, target_name=belief.rooms[room_id].name,
                room_id=room_id, room_name=belief.rooms[room_id].name, target_ids=(room_id,),
                cost=float(cells), distance=float(cells), claims=estimates.claims(belief, room_id),
                notes=("not visited yet",) if seen is None else (f"last seen at tick {seen}",),
            ))
        return options

    @staticmethod
    def _set_downs(belief: HouseBelief) -> list[Affordance]:
        options = []
        for object_id in belief.holding:
            obj = belief.objects.get(object_id)
            if obj is None or belief.predicate_for(obj) is not None:
                continue
            options.append(Affordance(
                kind="set_down", group=AffordanceGroup.OTHER, target_id=obj.id, target_name=obj.name,
                room_id=belief.room_id, room_name=belief.room_name(belief.room_id), target_ids=(obj.id,), cost=1.0,
                distance=0.0, notes=(f"nothing needs {obj.label} now: frees the hand",),
            ))
        return options
