"""A scripted TDW-MAT planner that chooses among the kit's own action list (CoELA's), for decision data.

RHP plans sub-goals and primitive moves of its own, so its choices do not map one to one onto CoELA's lettered
list. This planner keeps RHP's sub-goal rules (carry to the bed after `max - 700` frames, when everything is
accounted for, with a full container or both hands full; a container first before `max - 1400` frames, then
targets) but picks the *nearest* known object instead of a random one, puts a held target into the held
container at once, and explores by CoELA's own actions (the current room, then the nearest room least
explored). It never talks. Its every choice is one of the options the kit listed, so it labels a CoELA prompt
exactly; the skill book runs it.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs.kit_member import KitMember
from coopgraph.envs.protocol import Affordance
from coopgraph.envs.tdw_mat.affordances import EXPLORE, GOTO, GRAB, PUT, TRANSPORT
from coopgraph.envs.tdw_mat.belief import TDWBelief

#: How unexplored a room is, for choosing where to go next (fewer first).
_LEVEL = {"none": 0, "part": 1, "all": 2}


class TransportPlanner(KitMember):
    """A `TeamMember` on `tdw-mat`: RHP's sub-goal rules on CoELA's action list, nearest first."""

    name = "planner"

    @property
    def belief(self) -> TDWBelief:
        assert self.kit is not None
        belief = self.kit.belief
        assert isinstance(belief, TDWBelief)
        return belief

    def choose(self, belief: TDWBelief, options: list[Affordance]) -> Affordance:
        """The option RHP's rules ask for, nearest first; an option always comes from `options`."""
        def nearest(kind: str, test: Any = None) -> Affordance | None:
            found = [o for o in options if o.kind == kind and (test is None or test(o))]
            return min(found, key=lambda o: (o.cost if o.cost is not None else float("inf"), o.text), default=None)

        held = [belief.objects[i] for i in belief.hand_items if i in belief.objects]
        container = next((o for o in held if o.kind == "container"), None)
        inside = len(belief.contents.get(container.id, [])) if container is not None else 0
        carried = len([o for o in held if o.kind == "item"]) + inside
        needed = sum(p.count for p in belief.goal) - len(belief.transported)
        late = belief.time > belief.horizon - 700
        full = (container is not None and inside >= belief.rules.container_capacity) or (
            len(held) == belief.hands and container is None)
        if (put := nearest(PUT)) is not None:
            return put
        transport = nearest(TRANSPORT)
        if transport is not None and (late or full or carried >= needed):
            return transport
        if container is None and belief.time < belief.horizon - 1400 and not held:
            grab = nearest(GRAB, lambda o: belief.objects[o.target_id].kind == "container")
            if grab is not None:
                return grab
        grab = nearest(GRAB, lambda o: belief.objects[o.target_id].kind == "item")
        if grab is not None:
            return grab
        if transport is not None and carried:
            return transport
        if (explore := nearest(EXPLORE)) is not None:
            return explore
        rooms = [o for o in options if o.kind == GOTO]
        if rooms:
            return min(rooms, key=lambda o: (_LEVEL[belief.explored[o.target_id]],  # type: ignore[index]
                                             o.cost if o.cost is not None else float("inf"), o.text))
        return options[0]
