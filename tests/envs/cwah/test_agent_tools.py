"""The agent-side tools: belief from observations, the action list rules, and the skill book."""

from __future__ import annotations

from coopgraph.envs import make
from coopgraph.envs.cwah import CWAHAffordances, CWAHBelief, CWAHEnv, CWAHSkillBook
from coopgraph.envs.protocol import Affordance, Affordances, SkillBook, SkillStatus


def _setup(episode: str = "test/1") -> tuple[CWAHEnv, CWAHBelief, dict]:
    env = make("cwah", episode=episode, num_agents=2)
    observations, _ = env.reset(seed=0)
    belief = CWAHBelief("alice", env.agent_info("alice"))
    belief.update(observations["alice"])
    return env, belief, observations


def _run_plan(
    env: CWAHEnv, plan: Affordance, observations: dict, limit: int = 120
) -> tuple[SkillStatus, dict]:
    skills = CWAHSkillBook.from_env_info(env.agent_info("alice"))
    for _ in range(limit):
        step = skills.next_action(plan, observations["alice"])
        if step.status is not SkillStatus.RUNNING:
            return step.status, observations
        observations, *_ = env.step({"alice": step.action, "bob": "[wait]"})
    raise AssertionError("the plan neither finished nor gave up")


def test_tools_satisfy_the_protocols() -> None:
    assert isinstance(CWAHAffordances(), Affordances)
    assert isinstance(CWAHSkillBook(), SkillBook)


def test_belief_tracks_rooms_objects_and_progress() -> None:
    env, belief, _ = _setup()
    room = env.world.agents["alice"].room
    assert belief.explored_rooms == {room}
    assert set(belief.unexplored_rooms()) == {r.id for r in env.episode.rooms} - {room}
    assert all(o.room_id == room for o in belief.objects.values())
    assert all(belief.remaining(p) == p.count for p in belief.goal)
    assert "I'm holding nothing" in belief.progress_text()


def test_brief_state_counts_what_nobody_holds_and_says_what_a_partner_goes_for() -> None:
    from coopgraph.envs.cwah.belief import KnownObject, PartnerIntent

    env, belief, _ = _setup()
    goal = belief.goal[0]
    assert f"Still to fetch: {goal.count} {goal.object_name}" in belief.brief_text()
    furniture = sum(1 for o in belief.objects.values() if o.kind != "item")
    assert (f"Unexplored rooms: {len(belief.unexplored_rooms())} of {len(belief.rooms)}. Furniture seen: "
            f"{furniture}.") in belief.brief_text()
    partner = belief.partners["bob"]
    held = KnownObject(id=9001, name=goal.object_name, kind="item", held_by="bob")
    belief.objects[held.id] = held
    partner.holding, partner.last_seen_step = [held.id], belief.step
    still = f"{goal.count - 1} {goal.object_name}" if goal.count > 1 else None
    text = belief.brief_text()
    assert f"holding {held.label}" in text and (still is None or f"Still to fetch: {still}" in text)
    assert (f"{goal.count} {goal.object_name}" not in text.split("Still to fetch:")[1].split(".")[0])
    belief.partner_intents["bob"] = PartnerIntent(kind="goexplore", target_id=belief.unexplored_rooms()[0], step=3)
    assert f"Bob said at step 3: [goexplore] {belief.rooms[belief.unexplored_rooms()[0]].label}." in \
        belief.brief_text()


def test_brief_state_does_not_count_an_object_a_partner_said_it_goes_for() -> None:
    from coopgraph.envs.cwah.belief import KnownObject, PartnerIntent

    _, belief, _ = _setup()
    goal = belief.goal[0]
    loose = KnownObject(id=9002, name=goal.object_name, kind="item", room_id=belief.room_id)
    belief.objects[loose.id] = loose
    belief.partner_intents["bob"] = PartnerIntent(kind="gograb", target_id=loose.id, step=1)
    fetch = belief.brief_text().split("Still to fetch: ")[1].split(".")[0]
    assert f"{goal.count} {goal.object_name}" not in fetch
    assert goal.count == 1 or f"{goal.count - 1} {goal.object_name}" in fetch
    belief.intent = PartnerIntent(kind="gograb", target_id=loose.id, step=0)  # I said it first: still mine
    assert f"{goal.count} {goal.object_name}" in belief.brief_text().split("Still to fetch: ")[1].split(".")[0]


def test_brief_state_counts_an_object_a_partner_put_in_place_once() -> None:
    """A partner last seen holding an object then reports it put in place: the object is done, not also held."""
    from coopgraph.envs.cwah.belief import KnownObject

    _, belief, _ = _setup("test/2")
    goal = max(belief.goal, key=lambda p: p.count)
    placed = KnownObject(id=9003, name=goal.object_name, kind="item", held_by="bob", last_seen_step=belief.step)
    belief.objects[placed.id] = placed
    belief.partners["bob"].holding, belief.partners["bob"].last_seen_step = [placed.id], belief.step
    relation = "on" if goal.relation == "ON" else "inside"
    belief.step += 5  # the report comes later than the sighting
    belief.note_object(placed.id, placed.name, "item", None, **{relation: goal.target_id})
    assert belief.remaining(goal) == goal.count - 1 and belief.partners["bob"].holding == [placed.id]
    fetch = belief.brief_text().split("Still to fetch: ")[1].split(".")[0]
    assert goal.count > 1 and f"{goal.count - 1} {goal.object_name}" in fetch


def test_a_room_is_the_usual_room_of_a_goal_target_only_until_the_target_is_found() -> None:
    from coopgraph.envs.cwah.belief import KnownObject
    from coopgraph.envs.cwah.catalog import HOME_ROOM

    _, belief, _ = _setup()
    target = belief.goal[0]
    home = HOME_ROOM[target.target_name]
    room = next(r for r in belief.rooms.values() if r.name == home)
    other = next(r for r in belief.rooms.values() if r.name != home)
    belief.objects.pop(target.target_id, None)
    assert target.target_name in belief.unseen_targets_usually_in(room.id)
    assert target.target_name not in belief.unseen_targets_usually_in(other.id)
    belief.objects[target.target_id] = KnownObject(id=target.target_id, name=target.target_name, kind="surface",
                                                   room_id=room.id)
    assert target.target_name not in belief.unseen_targets_usually_in(room.id)


def test_action_list_offers_explore_check_and_grab_but_never_grab_with_full_hands() -> None:
    env, belief, observations = _setup()
    options = CWAHAffordances().available(belief, message="hello")
    kinds = [o.kind for o in options]
    assert kinds[0] == "send_message" and options[0].text == '[send_message] <"hello">'
    assert kinds == sorted(kinds, key=["send_message", "goexplore", "gocheck", "gograb", "goput"].index)
    explore = [o for o in options if o.kind == "goexplore"]
    assert {o.target_id for o in explore} == set(belief.unexplored_rooms())
    assert explore[0].text == f"[goexplore] <{explore[0].target_name}> ({explore[0].target_id})"
    checks = {o.target_id for o in options if o.kind == "gocheck"}
    assert checks == {c.id for c in belief.unchecked_containers()}
    # Hands full of goal objects whose target is known: putting is the only choice.
    goal = belief.goal[0]
    world = env.world
    first = next(o for o in world.objects.values() if o.name == goal.object_name)
    second = next(o for o in world.objects.values() if o.name in belief.goal_classes and o.id != first.id)
    items = [first, second]
    alice = world.agents["alice"]
    for item in items:
        item.held_by, item.on, item.inside = "alice", None, None
        alice.holding.append(item.id)
    target = world.objects[goal.target_id]
    world.move_agent(alice, target.position, target.room)
    observations, *_ = env.step({"alice": "[wait]", "bob": "[wait]"})
    belief.update(observations["alice"])
    options = CWAHAffordances().available(belief)
    assert options and {o.kind for o in options} == {"goput"}
    assert items[0].id in options[0].target_ids


def test_skill_book_completes_grab_then_put() -> None:
    env, belief, observations = _setup("test/0")
    goal = belief.goal[0]
    world = env.world
    item = next(o for o in world.objects.values() if o.name == goal.object_name)
    holder = world.objects[item.inside if item.inside is not None else item.on]
    grab = Affordance(
        kind="gograb",
        target_id=item.id,
        target_name=item.name,
        room_id=holder.room,
        room_name=world.room_name(holder.room),
        via_id=holder.id if holder.kind == "container" else None,
    )
    status, observations = _run_plan(env, grab, observations)
    assert status is SkillStatus.DONE and world.agents["alice"].holding == [item.id]
    target = world.objects[goal.target_id]
    put = Affordance(
        kind="goput",
        target_id=target.id,
        target_name=target.name,
        room_id=target.room,
        room_name=world.room_name(target.room),
        target_ids=(item.id,),
    )
    status, observations = _run_plan(env, put, observations)
    assert status is SkillStatus.DONE
    assert (item.on if goal.relation == "ON" else item.inside) == target.id
    assert world.agents["alice"].holding == []


def test_skill_book_reports_failure_on_an_impossible_plan() -> None:
    env, _, observations = _setup("test/0")
    kitchen = next(r for r in env.episode.rooms if r.name == "kitchen")
    ghost = Affordance(
        kind="gograb", target_id=424242, target_name="unicorn", room_id=kitchen.id, room_name="kitchen"
    )
    status, _ = _run_plan(env, ghost, observations)
    assert status is SkillStatus.FAILED
    nothing = Affordance(kind="goput", target_id=kitchen.id + 1, target_name="x", room_id=kitchen.id)
    assert CWAHSkillBook().next_action(nothing, observations["alice"]).status is SkillStatus.FAILED


def test_skill_book_gives_up_after_repeated_rejections() -> None:
    env, _, observations = _setup("test/0")
    room = env.world.agents["alice"].room
    stuck = Affordance(kind="goexplore", target_id=room + 10_000, target_name="attic", room_id=room + 10_000)
    status, _ = _run_plan(env, stuck, observations, limit=10)
    assert status is SkillStatus.FAILED


def test_skill_book_reports_interruption_when_a_partner_takes_the_object() -> None:
    env, _, observations = _setup("test/0")
    world = env.world
    item = next(o for o in world.objects.values() if o.kind == "item" and o.on is not None)
    alice, bob = world.agents["alice"], world.agents["bob"]
    world.move_agent(alice, item.position, item.room)
    world.move_agent(bob, item.position, item.room)
    plan = Affordance(kind="gograb", target_id=item.id, target_name=item.name, room_id=item.room)
    observations, *_ = env.step({"alice": "[wait]", "bob": f"[grab] <{item.name}> ({item.id})"})
    step = CWAHSkillBook().next_action(plan, observations["alice"])
    assert step.status is SkillStatus.INTERRUPTED and "Bob" in step.reason
