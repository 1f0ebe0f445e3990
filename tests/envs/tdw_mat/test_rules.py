"""Hands, containers, put-in, grasp range and delivery near the bed in the bedroom."""

from __future__ import annotations

from coopgraph.envs.tdw_mat.env import TDWMatEnv
from coopgraph.envs.tdw_mat.world import Thing
from tests.envs.tdw_mat.conftest import place, put_thing, things


def _run(env: TDWMatEnv, action: str) -> dict:
    """Alice does `action` to its end (bob waits); her last info."""
    obs, *_, infos = env.step({"alice": action, "bob": "[wait]"})
    while not obs["alice"].ready:
        obs, *_, infos = env.step({"bob": "[wait]"})
    return {"obs": obs["alice"], "info": infos["alice"]}


def _grasp(env: TDWMatEnv, thing: Thing) -> dict:
    body = env.world.agents["alice"]
    put_thing(env, thing, (body.position[0] + 0.5, body.position[1]))
    return _run(env, f"[grasp] <{thing.name}> ({thing.id})")


def _in_livingroom(env: TDWMatEnv) -> None:
    place(env, "alice", (0.74, -2.78))


def test_two_hands_a_third_grasp_fails(env: TDWMatEnv) -> None:
    _in_livingroom(env)
    first, second, third = things(env, "target")[:3]
    assert _grasp(env, first)["obs"].last_action_ok and _grasp(env, second)["obs"].last_action_ok
    refused = _grasp(env, third)
    assert not refused["obs"].last_action_ok and "both hands are full" in refused["obs"].last_action_reason
    assert env.world.agents["alice"].held() == [first.id, second.id]


def test_put_in_needs_a_container_and_a_target(env: TDWMatEnv) -> None:
    _in_livingroom(env)
    first, second = things(env, "target")[:2]
    _grasp(env, first)
    _grasp(env, second)
    before = env.world.time
    refused = _run(env, "[put_in]")
    assert not refused["obs"].last_action_ok and "container" in refused["obs"].last_action_reason
    assert env.world.time - before == env.rules.frames_invalid


def test_a_container_holds_three_and_a_fourth_put_in_spends_its_frames(env: TDWMatEnv) -> None:
    _in_livingroom(env)
    bowl = things(env, "container")[0]
    targets = things(env, "target")[:4]
    _grasp(env, bowl)
    for target in targets[:3]:
        _grasp(env, target)
        done = _run(env, "[put_in]")
        assert done["obs"].last_action_ok and target.inside == bowl.id
    assert bowl.contents == [t.id for t in targets[:3]]
    holding = _run(env, "[wait]")["obs"].holding
    assert [o.inside for o in holding] == [None, bowl.id, bowl.id, bowl.id]
    _grasp(env, targets[3])
    before = env.world.time
    refused = _run(env, "[put_in]")
    assert not refused["obs"].last_action_ok and "already holds 3" in refused["obs"].last_action_reason
    assert env.world.time - before == env.rules.frames_put_in and targets[3].inside is None


def test_grasp_range_is_two_metres(env: TDWMatEnv) -> None:
    _in_livingroom(env)
    apple = things(env, "target")[0]
    put_thing(env, apple, (0.74, -0.79))  # 1.99 m
    assert _run(env, f"[grasp] <{apple.name}> ({apple.id})")["obs"].last_action_ok
    pear = things(env, "target")[1]
    body = env.world.agents["alice"]
    put_thing(env, pear, (body.position[0], body.position[1] - 2.01))
    refused = _run(env, f"[grasp] <{pear.name}> ({pear.id})")["obs"]
    assert not refused.last_action_ok
    assert refused.last_action_reason.endswith("is out of reach: 2.0 m away, the grasp range is 2 m")


def test_a_grasp_through_a_wall_is_refused_naming_the_rooms_not_a_distance(env: TDWMatEnv) -> None:
    place(env, "alice", (0.74, -1.0))  # the living room, near its wall with the kitchen
    apple = things(env, "target")[0]
    put_thing(env, apple, (0.74, 0.2))  # 1.2 m away, within the grasp range, but in the kitchen
    here, there = env.plan.rooms[env.world.agents["alice"].room_id], env.plan.rooms[apple.room_id]
    assert here.id != there.id
    refused = _run(env, f"[grasp] <{apple.name}> ({apple.id})")["obs"]
    assert not refused.last_action_ok and "out of reach" not in refused.last_action_reason
    assert refused.last_action_reason == (f"<{apple.name}> ({apple.id}) is in the {there.label}, another room "
                                          f"than the {here.label} you are in")


def _near_bed(env: TDWMatEnv) -> tuple[float, float]:
    bed = env.plan.bed
    room = env.plan.rooms[env.plan.bed_room].center
    return (bed[0] + (room[0] - bed[0]) * 0.3, bed[1] + (room[1] - bed[1]) * 0.3)


def test_a_held_target_near_the_bed_counts_and_stays_counted(env: TDWMatEnv) -> None:
    _in_livingroom(env)
    apple = things(env, "target")[0]
    _grasp(env, apple)
    assert env.world.delivered() == 0
    place(env, "alice", _near_bed(env))
    _run(env, "[wait]")
    assert apple.delivered and env.world.delivered() == 1
    _in_livingroom(env)
    assert _run(env, "[wait]")["info"]["delivered"] == 1  # sticky


def test_nothing_counts_three_metres_or_more_from_the_bed_or_outside_the_bedroom(env: TDWMatEnv) -> None:
    apple = things(env, "target")[0]
    bed = env.plan.bed
    put_thing(env, apple, (bed[0], bed[1] + 3.05))
    _run(env, "[wait]")
    assert not apple.delivered


def test_a_container_never_counts_and_is_lost_once_dropped_at_the_bed(env: TDWMatEnv) -> None:
    _in_livingroom(env)
    bowl, apple = things(env, "container")[0], things(env, "target")[0]
    _grasp(env, bowl)
    _grasp(env, apple)
    _run(env, "[put_in]")
    place(env, "alice", _near_bed(env))
    dropped = _run(env, f"[drop] <{bowl.name}> ({bowl.id})")
    assert dropped["obs"].last_action_ok and bowl.lost and apple.delivered
    assert env.world.delivered() == 1 and env.metrics().transport_rate == 0.1
    again = _run(env, f"[grasp] <{bowl.name}> ({bowl.id})")
    assert not again["obs"].last_action_ok


def test_an_unreadable_action_spends_a_frame_and_says_why(env: TDWMatEnv) -> None:
    out = _run(env, "fly away")
    assert not out["obs"].last_action_ok and "could not read" in out["obs"].last_action_reason
    assert out["obs"].time == 1


def test_a_refused_grasp_types_what_it_says_about_the_object(env: TDWMatEnv) -> None:
    _in_livingroom(env)
    apple, pear, plum = things(env, "target")[:3]
    bowl = things(env, "container")[0]
    far = _run(env, "[wait]")  # nothing failed yet
    assert far["obs"].last_action_cause is None
    place(env, "bob", (0.74, -2.0))
    put_thing(env, apple, (0.74, -1.6))  # 0.4 m from Bob, 1.2 m from Alice: Bob's grasp ends first
    obs, *_ = env.step({"alice": f"[grasp] <{apple.name}> ({apple.id})", "bob": f"[grasp] <{apple.name}> ({apple.id})"})
    while not obs["alice"].ready:
        obs, *_ = env.step({"bob": "[wait]"})
    assert obs["alice"].last_action_reason.endswith("was taken first") and obs["alice"].last_action_cause == "held"
    held = _run(env, f"[grasp] <{apple.name}> ({apple.id})")["obs"]
    assert held.last_action_reason == f"<{apple.name}> ({apple.id}) is held" and held.last_action_cause == "held"
    pear.inside = bowl.id
    assert _run(env, f"[grasp] <{pear.name}> ({pear.id})")["obs"].last_action_cause == "inside"
    plum.delivered = True
    assert _run(env, f"[grasp] <{plum.name}> ({plum.id})")["obs"].last_action_cause == "transported"
    put_thing(env, bowl, (-1.8, -2.78))
    out_of_reach = _run(env, f"[grasp] <{bowl.name}> ({bowl.id})")["obs"]
    assert "out of reach" in out_of_reach.last_action_reason and out_of_reach.last_action_cause == "elsewhere"
