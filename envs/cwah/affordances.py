"""The C-WAH action list: the high-level actions an agent may choose from, computed from its belief.

This is the one place the list is built (CoELA's planner options): `[send_message]`, `[goexplore] <room>`,
`[gocheck] <container>`, `[gograb] <object>`, `[goput] <target>`. Rules: nothing is grabbed or checked
with both hands full, and then putting is the only choice; putting is offered whenever a held object
serves an unfinished subgoal whose target has been seen; only unfinished goal objects are offered to grab.
Each option carries the generic fields planners sort and filter on (`annotate`).
"""

from __future__ import annotations

from coopgraph.envs.cwah.annotate import annotate
from coopgraph.envs.cwah.belief import CWAHBelief, KnownObject
from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance


class CWAHAffordances:
    """Implements the `Affordances` protocol for C-WAH."""

    def available(self, belief: CWAHBelief, message: str | None = None) -> list[Affordance]:
        """The ordered action list, annotated for planners (`annotate`); `message` (a drafted text) adds a
        `[send_message]` entry first."""
        return annotate(belief, self._listed(belief, message))

    def observed(self, belief: CWAHBelief) -> list[Affordance]:
        """`observed_actions`: grabs of the free items seen that `available` leaves out (a class no subgoal asks
        for, a dummy, a finished subgoal's spare), annotated alike; never an object already in place on its goal
        target (the reference's "satisfied"); none with both hands full. REVECA ranks these
        with the listed actions and lets relevance keep them out; `available` itself is unchanged."""
        if len(belief.holding) >= belief.config.hands:
            return []
        listed = {obj.id for obj in belief.goal_objects()}
        placed = {(p.object_name, p.target_id) for p in belief.goal}  # in place: satisfied, never offered
        extra = [obj for obj in sorted(belief.objects.values(), key=lambda o: o.id)
                 if obj.kind == "item" and obj.room_id is not None and obj.held_by is None and obj.id not in listed
                 and (obj.name, obj.on) not in placed and (obj.name, obj.inside) not in placed]
        return annotate(belief, [self._grab(belief, obj) for obj in extra])

    @staticmethod
    def _grab(belief: CWAHBelief, obj: KnownObject) -> Affordance:
        holder = belief.objects.get(obj.inside) if obj.inside is not None else None
        closed = holder is not None and holder.is_open is False
        return Affordance(
            kind="gograb",
            group=AffordanceGroup.FETCH,
            target_id=obj.id,
            target_name=obj.name,
            room_id=obj.room_id,
            room_name=belief.room_name(obj.room_id),
            via_id=holder.id if closed and holder else None,
        )

    def _listed(self, belief: CWAHBelief, message: str | None) -> list[Affordance]:
        options: list[Affordance] = []
        if message:
            options.append(message_affordance(message))
        puts = self._puts(belief)
        if len(belief.holding) >= belief.config.hands:
            return options + puts if puts else options + self._explores(belief)
        options += self._explores(belief)
        for container in belief.unchecked_containers():
            options.append(
                Affordance(
                    kind="gocheck",
                    group=AffordanceGroup.INSPECT,
                    target_id=container.id,
                    target_name=container.name,
                    room_id=container.room_id,
                    room_name=belief.room_name(container.room_id),
                )
            )
        for obj in belief.goal_objects():
            options.append(self._grab(belief, obj))
        return options + puts

    @staticmethod
    def _explores(belief: CWAHBelief) -> list[Affordance]:
        rooms = [r for r in belief.unexplored_rooms() if r != belief.room_id]
        if not rooms:  # everything seen once: allow going back to look again
            rooms = [r for r in sorted(belief.rooms) if r != belief.room_id]
        return [
            Affordance(
                kind="goexplore",
                group=AffordanceGroup.EXPLORE,
                target_id=r,
                target_name=belief.rooms[r].name,
                room_id=r,
                room_name=belief.rooms[r].name,
            )
            for r in rooms
        ]

    @staticmethod
    def _puts(belief: CWAHBelief) -> list[Affordance]:
        by_target: dict[int, list[int]] = {}
        for object_id in belief.holding:
            obj = belief.objects.get(object_id)
            predicate = belief.predicate_for(obj) if obj is not None else None
            if predicate is not None:
                by_target.setdefault(predicate.target_id, []).append(object_id)
        puts = []
        for target_id, held in sorted(by_target.items()):
            target = belief.objects.get(target_id)
            if target is None or target.room_id is None:
                continue  # the target has not been seen yet: explore first
            puts.append(
                Affordance(
                    kind="goput",
                    group=AffordanceGroup.DELIVER,
                    repeatable=True,  # it delivers what is in the hands now: due again for the next object
                    target_id=target_id,
                    target_name=target.name,
                    room_id=target.room_id,
                    room_name=belief.room_name(target.room_id),
                    target_ids=tuple(held),
                )
            )
        return puts
