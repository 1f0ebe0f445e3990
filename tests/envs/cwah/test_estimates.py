"""The look estimates MHP chooses by and a shortlist ranks by: value per step of each check and explore."""

from __future__ import annotations

from coopgraph.envs import make
from coopgraph.envs.cwah import CWAHAffordances, CWAHBelief
from coopgraph.envs.cwah.belief import PartnerIntent
from coopgraph.envs.cwah.catalog import HOME_ROOM
from coopgraph.envs.cwah.experts.planner import SubgoalPlanner
from coopgraph.envs.protocol import Affordance


def _belief(episode: str = "test/0") -> tuple[CWAHBelief, list[Affordance]]:
    env = make("cwah", episode=episode, num_agents=2)
    observations, _ = env.reset(seed=0)
    belief = CWAHBelief("alice", env.agent_info("alice"))
    belief.update(observations["alice"])
    return belief, CWAHAffordances().available(belief)


def test_ranked_looks_holds_every_check_and_explore_once_and_nothing_else() -> None:
    belief, options = _belief()
    ranked = belief.ranked_looks(options)
    looks = [o for o in options if o.kind in ("gocheck", "goexplore")]
    assert looks and sorted(o.text for o in ranked) == sorted(o.text for o in looks)


def test_the_first_ranked_look_is_the_look_mhp_chooses() -> None:
    for episode in ("test/0", "test/1", "test/2"):
        belief, options = _belief(episode)
        looks = [o for o in options if o.kind in ("gocheck", "goexplore")]  # nothing to grab or put yet
        assert SubgoalPlanner().choose(belief, looks) is belief.ranked_looks(options)[0]


def test_the_usual_room_of_a_target_not_found_comes_first_until_explored_and_a_claimed_look_moves_down() -> None:
    belief, options = _belief()
    target = belief.goal[0]
    home = next(o for o in options if o.kind == "goexplore" and HOME_ROOM.get(target.target_name) == o.target_name)
    assert target.target_id not in belief.objects and belief.ranked_looks(options)[0] is home
    belief.explored_rooms.add(home.target_id)
    belief.room_visits[home.target_id] = belief.step  # explored just now: hardly worth a second look
    assert belief.ranked_looks(options)[-1] is home
    first = belief.ranked_looks(options)[0]
    partner = next(iter(belief.partners))
    belief.partner_intents[partner] = PartnerIntent(kind=first.kind, target_id=first.target_id, step=0)
    assert belief.ranked_looks(options).index(first) > 0  # a partner said it looks there: worth less to me


def test_a_partner_near_another_object_of_the_class_i_announced_is_not_expected_to_take_it() -> None:
    from coopgraph.envs.cwah.belief import KnownObject
    from coopgraph.envs.cwah.estimates import claimed

    belief, _ = _belief()
    predicate = belief.goal[0]
    rooms = [r for r in belief.rooms if r != belief.room_id]
    mine, theirs = 9001, 9002  # two objects of the class, the last one still needed
    for object_id, room in ((mine, rooms[0]), (theirs, rooms[1])):
        belief.objects[object_id] = KnownObject(id=object_id, name=predicate.object_name, kind="item", room_id=room)
    partner = next(iter(belief.partners.values()))
    partner.room_id, partner.last_seen_step, partner.holding = rooms[1], belief.step, []
    assert theirs in claimed(belief)  # a free-handed partner in that room will likely take it
    belief.intent = PartnerIntent(kind="gograb", target_id=mine, step=belief.step)
    assert theirs not in claimed(belief)  # but it heard I go for one of these, so it counts the class covered
    belief.objects[mine].held_by = belief.agent_id
    assert theirs in claimed(belief)  # once my grab is done the announcement no longer speaks for the class


def _holding_one_with_the_put_far() -> tuple[CWAHBelief, list[Affordance]]:
    """Alice holds a pudding; the coffeetable it goes on is known, 13 m away in the living room; the juice and
    wine she sees are left off the options (nothing needed within reach)."""
    from coopgraph.envs.cwah.belief import KnownObject

    belief, _ = _belief()
    belief.holding, belief.objects[304].held_by = [304], belief.agent_id
    room = belief.rooms[110]
    belief.objects[111] = KnownObject(id=111, name="coffeetable", kind="surface", room_id=110, position=room.center)
    return belief, [o for o in CWAHAffordances().available(belief) if o.kind != "gograb"]


def test_the_best_look_comes_before_a_far_put_while_a_hand_is_free() -> None:
    belief, options = _holding_one_with_the_put_far()
    assert any(o.kind == "goput" for o in options)
    assert belief.look_before_put(options) is belief.ranked_looks(options)[0]
    assert belief.look_before_put([o for o in options if o.kind != "goput"]) is None  # no put: no detour
    belief.objects[111].room_id, belief.objects[111].position = belief.room_id, belief.position
    assert belief.look_before_put(options) is None  # the put is right here: deliver first


def test_no_look_before_a_put_with_full_hands() -> None:
    belief, options = _holding_one_with_the_put_far()
    belief.holding.append(310)
    assert belief.look_before_put(options) is None


def test_no_look_before_a_put_while_a_needed_object_is_there_to_grab() -> None:
    belief, options = _holding_one_with_the_put_far()
    assert belief.look_before_put(options) is not None
    grabs = [o for o in CWAHAffordances().available(belief) if o.kind == "gograb"]
    assert grabs and belief.look_before_put(options + grabs) is None  # MHP fetches what it can carry first
    for partner, grab in zip(("bob", "carol"), grabs, strict=True):  # partners said they take both
        belief.partner_intents[partner] = PartnerIntent(kind="gograb", target_id=grab.target_id, step=belief.step)
    assert belief.look_before_put(options + grabs) is belief.look_before_put(options)  # the look is back
