"""What one agent perceives: its room (lit: everything not shut in a closed container), its hand, partners in
the same room, the goal, and the messages that reached it since it last was ready."""

from __future__ import annotations

from coopgraph.envs.protocol import (
    AffordanceGroup,
    GoalPredicate,
    HouseObservation,
    Message,
    ObjectInfo,
    PartnerInfo,
    PrimitiveAction,
    RoomInfo,
)
from coopgraph.testing.toyhouse.grid import Cell, Grid
from coopgraph.testing.toyhouse.world import Thing, World


def describe_goal(goal: list[GoalPredicate]) -> str:
    """One sentence per target, e.g. `Deliver 1 apple and 1 book into the <basket> (12).`"""
    targets: dict[tuple[int, str, str], list[str]] = {}
    for predicate in goal:
        targets.setdefault((predicate.target_id, predicate.target_name, predicate.relation), []).append(
            f"{predicate.count} {predicate.object_name}")
    return " ".join(f"Deliver {' and '.join(wanted)} {'onto' if relation == 'ON' else 'into'} the <{name}> ({tid})."
                    for (tid, name, relation), wanted in targets.items())


def room_infos(grid: Grid) -> list[RoomInfo]:
    return [RoomInfo(id=r.id, name=r.name, center=(float(r.center[0]), float(r.center[1])),
                     size=(float(r.width), float(r.depth))) for r in grid.rooms.values()]


def _point(cell: Cell) -> tuple[float, float]:
    return (float(cell[0]), float(cell[1]))


def thing_info(world: World, thing: Thing, viewer: Cell | None = None) -> ObjectInfo:
    room_id = world.room_of(thing.cell)
    return ObjectInfo(
        id=thing.id, name=thing.name, kind=thing.kind,  # type: ignore[arg-type]
        room=world.grid.rooms[room_id].name, room_id=room_id, position=_point(thing.cell),
        inside=thing.inside, on=thing.on, is_open=thing.is_open, held_by=thing.held_by,
        distance=None if viewer is None else float(world.grid.distance(viewer, thing.cell)),
    )


def _touch(last_action: str | None, ok: bool) -> AffordanceGroup | None:
    """What a successful take, open or drop onto a target did, in the shared groups (a bare drop sets down)."""
    if not ok or not last_action:
        return None
    try:
        action = PrimitiveAction.parse(last_action)
    except ValueError:
        return None
    if action.kind == "drop":
        return AffordanceGroup.DELIVER if action.object_id is not None else None
    return {"take": AffordanceGroup.FETCH, "open": AffordanceGroup.INSPECT}.get(action.kind)


def observe(world: World, agent_id: str, horizon: int, messages: list[Message], ready: bool) -> HouseObservation:
    agent = world.agents[agent_id]
    room_id = world.room_of(agent.cell)
    partners = [
        PartnerInfo(agent_id=other.id, name=other.name, room=world.grid.rooms[room_id].name, room_id=room_id,
                    position=_point(other.cell), holding=[thing_info(world, world.things[i]) for i in other.holding])
        for other in world.agents.values() if other.id != agent_id and world.room_of(other.cell) == room_id
    ]
    return HouseObservation(
        agent_id=agent_id, agent_name=agent.name, time=world.time, horizon=horizon,
        messages=messages, goal_text=describe_goal(world.goal),
        last_action=agent.last_action, last_action_ok=agent.last_ok, last_action_reason=agent.last_reason,
        last_action_cost=agent.last_cost, ready=ready, last_action_group=_touch(agent.last_action, agent.last_ok),
        room=world.grid.rooms[room_id].name, room_id=room_id, position=_point(agent.cell),
        visible_objects=[thing_info(world, t, agent.cell) for t in world.things.values() if world.visible_to(t, agent)],
        holding=[thing_info(world, world.things[i], agent.cell) for i in agent.holding],
        partners=partners, goal=list(world.goal), rooms=room_infos(world.grid),
    )
