"""What primitive actions do: walking by distance, partial observability, messages, invalid actions,
conflicts and determinism."""

from __future__ import annotations

import random

from coopgraph.envs import make
from coopgraph.envs.cwah import CWAHEnv, generate_episode
from coopgraph.envs.protocol import Observation, PrimitiveAction


def _env(
    episode: str = "test/0", agents: int = 2, **options: object
) -> tuple[CWAHEnv, dict[str, Observation]]:
    env = make("cwah", episode=episode, num_agents=agents, **options)
    observations, _ = env.reset(seed=0)
    return env, observations  # type: ignore[return-value]


def _wait_others(env: CWAHEnv, **actions: object) -> dict:
    return {agent: actions.get(agent, "[wait]") for agent in env.agents}


def test_walking_between_rooms_takes_steps_proportional_to_distance() -> None:
    env, observations = _env()
    alice = env.world.agents["alice"]
    target = next(room for room in env.episode.rooms if room.id != alice.room)
    metres = env.world.floor.distance(alice.position, alice.room, target.center, target.id)
    steps = 0
    while alice.room != target.id:
        env.step(_wait_others(env, alice=PrimitiveAction(kind="walk", target_id=target.id)))
        steps += 1
    assert steps > 1
    assert alice.travel <= steps * env.config.walk_speed + 1e-6
    assert alice.travel <= metres + 1e-6


def test_objects_in_closed_containers_and_other_rooms_are_invisible() -> None:
    env, observations = _env()
    world = env.world
    alice = world.agents["alice"]
    seen = {o.id for o in observations["alice"].visible_objects}
    for obj in world.objects.values():
        if obj.room != alice.room or obj.inside is not None and not world.objects[obj.inside].is_open:
            assert obj.id not in seen
        elif obj.held_by is None:
            assert obj.id in seen


def test_opening_a_container_reveals_its_contents() -> None:
    env, _ = _env("test/1")
    world = env.world
    container = next(
        c
        for c in world.objects.values()
        if c.kind == "container" and any(o.inside == c.id for o in world.objects.values())
    )
    alice = world.agents["alice"]
    world.move_agent(alice, container.position, container.room)
    inside = {o.id for o in world.objects.values() if o.inside == container.id}
    observations, *_ = env.step(_wait_others(env))
    assert not inside & {o.id for o in observations["alice"].visible_objects}
    observations, *_ = env.step(_wait_others(env, alice=PrimitiveAction(kind="open", target_id=container.id)))
    assert observations["alice"].last_action_ok
    assert inside <= {o.id for o in observations["alice"].visible_objects}


def test_long_message_is_cut_at_500_characters_and_reported() -> None:
    env, _ = _env()
    text = "x" * 620
    observations, _, _, _, infos = env.step(_wait_others(env, alice=f"[send_message] {text}"))
    assert infos["alice"]["message_truncated"] and infos["alice"]["message_chars_cut"] == 120
    received = observations["bob"].messages
    assert len(received) == 1 and len(received[0].text) == 500 and received[0].truncated
    assert observations["alice"].messages == []  # one's own message is not echoed back
    assert env.metrics().characters_sent == 500 and env.metrics().communication_steps == 1


def test_invalid_actions_spend_the_step_and_say_why() -> None:
    env, observations = _env()
    far_item = next(
        o for o in env.world.objects.values() if o.kind == "item" and o.room != env.world.agents["alice"].room
    )
    cases = {
        "[grab] <ghost> (99999)": "unknown object id",
        f"[grab] <{far_item.name}> ({far_item.id})": "not visible",
        "[fly] <kitchen> (60)": "unknown action kind",
        "hello there": "could not read",
        f"[put] <{far_item.name}> ({far_item.id}) <table> (11)": "not holding",
    }
    for step, (action, reason) in enumerate(cases.items(), start=1):
        observations, _, _, _, infos = env.step(_wait_others(env, alice=action))
        assert env.step_count == step
        assert not infos["alice"]["ok"] and reason in infos["alice"]["reason"]
        assert not observations["alice"].last_action_ok and reason in observations["alice"].last_action_reason
    assert env.metrics().invalid_actions == len(cases)


def test_grab_with_both_hands_full_and_put_when_far_fail() -> None:
    env, _ = _env("test/2")
    world = env.world
    alice = world.agents["alice"]
    surface = next(o for o in world.objects.values() if o.kind == "surface")
    items = [o for o in world.objects.values() if o.kind == "item"][:3]
    for item in items:  # lay three items on one surface next to alice
        item.on, item.inside, item.position, item.room = surface.id, None, surface.position, surface.room
    world.move_agent(alice, surface.position, surface.room)
    for item in items[:2]:
        _, _, _, _, infos = env.step(_wait_others(env, alice=PrimitiveAction(kind="grab", target_id=item.id)))
        assert infos["alice"]["ok"], infos["alice"]["reason"]
    _, _, _, _, infos = env.step(_wait_others(env, alice=PrimitiveAction(kind="grab", target_id=items[2].id)))
    assert not infos["alice"]["ok"] and "hands are full" in infos["alice"]["reason"]
    room = world.floor.rooms[alice.room]
    corners = [
        (room.x, room.y),
        (room.x + room.width, room.y),
        (room.x, room.y + room.depth),
        (room.x + room.width, room.y + room.depth),
    ]
    corner = max(corners, key=lambda c: (c[0] - surface.position[0]) ** 2 + (c[1] - surface.position[1]) ** 2)
    world.move_agent(alice, corner, room.id)
    put = PrimitiveAction(kind="put", object_id=items[0].id, target_id=surface.id)
    _, _, _, _, infos = env.step(_wait_others(env, alice=put))
    assert not infos["alice"]["ok"] and "too far" in infos["alice"]["reason"]
    assert alice.holding == [items[0].id, items[1].id]


def test_simultaneous_grab_of_one_object_is_resolved_by_the_seed() -> None:
    winners = set()
    for seed in range(6):
        env = make("cwah", episode="test/0")
        env.reset(seed=seed)
        world = env.world
        item = next(o for o in world.objects.values() if o.kind == "item" and o.on is not None)
        for agent in world.agents.values():
            world.move_agent(agent, item.position, item.room)
        grab = PrimitiveAction(kind="grab", target_id=item.id)
        _, _, _, _, infos = env.step({"alice": grab, "bob": grab})
        assert sorted(info["ok"] for info in infos.values()) == [False, True]
        winners.add(next(agent for agent, info in infos.items() if info["ok"]))
        again = make("cwah", episode="test/0")
        again.reset(seed=seed)
        for agent in again.world.agents.values():
            again.world.move_agent(agent, item.position, item.room)
        _, _, _, _, repeat = again.step({"alice": grab, "bob": grab})
        assert {a: i["ok"] for a, i in repeat.items()} == {a: i["ok"] for a, i in infos.items()}
    assert winners == {"alice", "bob"}  # different seeds, different (but reproducible) winners


def _meaningful_action(observation: Observation, rng: random.Random) -> PrimitiveAction:
    """A random but sensible action: walk somewhere, or interact with something visible."""
    choices = [PrimitiveAction(kind="walk", target_id=room.id) for room in observation.rooms]
    for obj in observation.visible_objects:
        choices.append(PrimitiveAction(kind="walk", target_id=obj.id))
        choices.append(PrimitiveAction(kind="grab" if obj.kind == "item" else "open", target_id=obj.id))
        if observation.holding and obj.kind != "item":
            choices.append(PrimitiveAction(kind="put", object_id=observation.holding[0].id, target_id=obj.id))
    return rng.choice(choices)


def test_generation_and_steps_are_deterministic_from_the_seed() -> None:
    assert generate_episode(5) == generate_episode(5)
    assert generate_episode(5) != generate_episode(6)

    def trajectory(seed: int) -> list[str]:
        env = make("cwah", episode="seed/77", num_agents=3)
        observations, _ = env.reset(seed=seed)
        rng = random.Random(seed)
        log = []
        for _ in range(60):
            actions = {a: _meaningful_action(observations[a], rng) for a in env.agents}
            observations, _, _, _, infos = env.step(actions)
            log += [
                f"{a}:{i['action']}:{i['ok']}:{i['position']}:{i['holding']}"
                for a, i in sorted(infos.items())
            ]
        return log

    first = trajectory(1)
    assert sum(":True:" in line for line in first) > 30  # the policy really acts
    assert first == trajectory(1)


def test_episode_ends_when_every_predicate_holds() -> None:
    env, _ = _env("test/0", agents=1)
    world = env.world
    for predicate in world.goal:
        relation = "on" if predicate.relation == "ON" else "inside"
        items = [o for o in world.objects.values() if o.name == predicate.object_name][: predicate.count]
        for item in items:
            item.on = item.inside = None
            setattr(item, relation, predicate.target_id)
    observations, rewards, terminations, truncations, infos = env.step({"alice": "[wait]"})
    assert terminations == {"alice": True} and not truncations["alice"]
    assert infos["alice"]["success"] and env.agents == []
    assert env.metrics().success and env.metrics().steps == 1
