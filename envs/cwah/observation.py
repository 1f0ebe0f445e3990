"""Builds the typed, partial observation of one agent from the world state (symbolic C-WAH observation).

An agent sees its room: furniture, items on surfaces and inside open containers, partners standing in
the same room with what they hold; plus its own hands and the messages partners sent last step.
"""

from __future__ import annotations

from coopgraph.envs.cwah.layout import euclid
from coopgraph.envs.cwah.state import AgentState, ObjectState, WorldState
from coopgraph.envs.protocol import (
    AffordanceGroup,
    GoalPredicate,
    HouseObservation,
    Message,
    ObjectInfo,
    PartnerInfo,
    RoomInfo,
    action_kind,
)

#: What C-WAH's primitive actions that touch a thing did, in the groups every world shares.
TOUCHES = {"grab": AffordanceGroup.FETCH, "open": AffordanceGroup.INSPECT, "put": AffordanceGroup.DELIVER}


def describe_goal(goal: list[GoalPredicate]) -> str:
    """One sentence per target, e.g. `Find and put 2 plate, 1 fork onto the <kitchentable> (130).`"""
    targets: dict[tuple[int, str, str], list[str]] = {}
    for predicate in goal:
        key = (predicate.target_id, predicate.target_name, predicate.relation)
        targets.setdefault(key, []).append(f"{predicate.count} {predicate.object_name}")
    sentences = []
    for (target_id, target_name, relation), wanted in targets.items():
        where = "onto" if relation == "ON" else "into"
        sentences.append(f"Find and put {', '.join(wanted)} {where} the <{target_name}> ({target_id}).")
    return " ".join(sentences)


def object_info(world: WorldState, obj: ObjectState, viewer: AgentState | None = None) -> ObjectInfo:
    return ObjectInfo(
        id=obj.id,
        name=obj.name,
        kind=obj.kind,
        room=world.room_name(obj.room),
        room_id=obj.room,  # type: ignore[arg-type]
        position=obj.position,
        inside=obj.inside,
        on=obj.on,
        is_open=obj.is_open,
        held_by=obj.held_by,
        distance=None if viewer is None else round(euclid(viewer.position, obj.position), 2),
    )


def room_infos(world: WorldState) -> list[RoomInfo]:
    return [
        RoomInfo(id=room.id, name=room.name, center=room.center, size=(room.width, room.depth))
        for room in world.floor.rooms.values()
    ]


class Observer:
    """Makes observations for one episode; caches what never changes (rooms, goal text)."""

    def __init__(self, world: WorldState, max_steps: int) -> None:
        self.world = world
        self.max_steps = max_steps
        self.rooms = room_infos(world)
        self.goal_text = describe_goal(world.goal)

    def observe(
        self,
        agent_id: str,
        step: int,
        inbox: list[Message],
        last_action: str | None = None,
        last_ok: bool = True,
        last_reason: str = "",
    ) -> HouseObservation:
        world = self.world
        agent = world.agents[agent_id]
        visible = [
            object_info(world, obj, agent) for obj in world.objects.values() if world.visible_to(obj, agent)
        ]
        partners = [
            PartnerInfo(
                agent_id=other.id,
                name=other.name,
                room=world.room_name(other.room),
                room_id=other.room,
                position=other.position,
                holding=[object_info(world, world.objects[i]) for i in other.holding],
            )
            for other in world.agents.values()
            if other.id != agent_id and other.room == agent.room
        ]
        return HouseObservation(
            agent_id=agent_id,
            agent_name=agent.name,
            time=step,
            horizon=self.max_steps,
            room=world.room_name(agent.room),
            room_id=agent.room,
            position=agent.position,
            visible_objects=visible,
            holding=[object_info(world, world.objects[i], agent) for i in agent.holding],
            partners=partners,
            messages=[m for m in inbox if m.reaches(agent_id)],
            goal=list(world.goal),
            goal_text=self.goal_text,
            rooms=self.rooms,
            last_action=last_action,
            last_action_ok=last_ok,
            last_action_reason=last_reason,
            last_action_group=TOUCHES.get(action_kind(last_action) or "") if last_ok else None,
        )
