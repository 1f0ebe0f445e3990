"""The Escape planner: a rule-based survivor that repairs generators and heads for the exit, safely.

Both players apply the same rules to the same state. Safe means not in a room the killer may enter this turn (the
room of the player it chases, or, while it wanders, any room its list links to). In order: a hunted player leads
the killer away from its partner through safe rooms; fix the generator here while it is unrepaired and staying is
safe; otherwise walk one link toward the goal through safe rooms (the exit once it is open; while both generators
need repair, Alice's is the first and Bob's the second; then both go to the one left); with no safe way forward,
stay if staying is safe, else take the move that goes farthest from the killer.
"""

from __future__ import annotations

from collections import deque

from coopgraph.envs.collab.escape import EscapeMove, EscapeState, KillerPlan
from coopgraph.envs.collab.maps import EXIT_ROOM, GENERATOR_ROOMS, Adjacency

FAR = 99


def moves_to(graph: Adjacency, start: int, goal: int) -> int:
    """Moves along the (possibly directed) links from `start` to `goal` (FAR when there is no way)."""
    seen, queue = {start: 0}, deque([start])
    while queue:
        room = queue.popleft()
        if room == goal:
            return seen[room]
        for nxt in graph[room]:
            if nxt not in seen:
                seen[nxt] = seen[room] + 1
                queue.append(nxt)
    return FAR


def danger(state: EscapeState, graph: Adjacency, plan: KillerPlan | None) -> set[int]:
    """The rooms the killer may stand in after this turn (a known chase: one room; wandering: its links)."""
    if plan is not None and plan.chasing is not None:
        return {plan.room}
    return set(graph[state.killer])


def goal_room(state: EscapeState, graph: Adjacency, index: int) -> int:
    """Where player `index` heads: the exit once both generators are repaired; while both need repair, Alice
    takes the first and Bob the second (so one can fix while the killer hunts the other); then the one left."""
    if state.exit_open:
        return EXIT_ROOM
    todo = [room for room in GENERATOR_ROOMS if not state.repaired(room)]
    return todo[index] if len(todo) == len(state.players) else todo[0]


def best_move(state: EscapeState, graph: Adjacency, index: int, plan: KillerPlan | None) -> EscapeMove:
    """Player `index`'s move by the rules in the module's docstring."""
    here, partner, unsafe = state.players[index], state.players[1 - index], danger(state, graph, plan)
    safe = [room for room in graph[here] if room not in unsafe]
    goal = goal_room(state, graph, index)
    if plan is not None and plan.chasing == index and safe:  # hunted: lead the killer away from the partner
        return EscapeMove("move", max(safe, key=lambda r: (moves_to(graph, r, partner), -moves_to(graph, r, goal))))
    if here in GENERATOR_ROOMS and not state.repaired(here) and here not in unsafe:
        return EscapeMove("fix", here)
    if safe:
        nearer = min(safe, key=lambda r: (moves_to(graph, r, goal), graph[here].index(r)))
        if here in unsafe or moves_to(graph, nearer, goal) < moves_to(graph, here, goal):
            return EscapeMove("move", nearer)
    if here not in unsafe or not graph[here]:
        return EscapeMove()
    return EscapeMove("move", max(graph[here], key=lambda r: moves_to(graph, state.killer, r)))
