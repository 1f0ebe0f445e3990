"""The belief learns from a refused grasp and from a remembered place it looks at and finds empty."""

from __future__ import annotations

import pytest

from coopgraph.envs.protocol import Message
from coopgraph.envs.tdw_mat.affordances import TDWAffordances
from coopgraph.envs.tdw_mat.belief import SOMEONE, STILL_THERE_BELOW, Known, TDWBelief
from coopgraph.envs.tdw_mat.env import TDWMatEnv
from coopgraph.envs.tdw_mat.kit import read_message
from coopgraph.envs.tdw_mat.observation import TDWObservation
from coopgraph.envs.tdw_mat.world import BED_ID, Thing
from tests.envs.tdw_mat.conftest import make_env, place, put_thing, things

#: In train/0's <Livingroom> (2000): Alice stands at its west end facing east (+x), the apple 3 m ahead of her.
EYE, EAST, WEST = (-1.5, -2.78), 90.0, -90.0
AHEAD = (1.5, -2.78)
#: A spot in the <Kitchen> (1000), behind a wall from the living room.
KITCHEN = (0.24, 2.72)


def _look(env: TDWMatEnv, belief: TDWBelief, action: str = "[wait]") -> TDWObservation:
    """Alice does `action` (Bob waits) and her belief takes in what she observes after it."""
    obs, *_ = env.step({"alice": action, "bob": "[wait]"})
    while not obs["alice"].ready:
        obs, *_ = env.step({"bob": "[wait]"})
    belief.update(obs["alice"])
    return obs["alice"]


def _setup(env: TDWMatEnv) -> tuple[TDWBelief, Thing]:
    """Alice has seen the apple free, 3 m ahead of her."""
    apple = things(env, "target")[0]
    place(env, "bob", KITCHEN)
    place(env, "alice", EYE, EAST)
    put_thing(env, apple, AHEAD)
    belief = TDWBelief("alice", env.agent_info("alice"))
    _look(env, belief)
    assert apple.id in _grabs(belief)
    return belief, apple


def _grabs(belief: TDWBelief) -> list[int | None]:
    return [o.target_id for o in TDWAffordances().available(belief) if o.kind == "gograb"]


def _take(env: TDWMatEnv, thing: Thing, agent: str) -> None:
    body = env.world.agents[agent]
    body.hands[body.hands.index(None)] = thing.id
    thing.holder = agent


def test_a_grasp_refused_because_the_object_is_held_takes_it_off_the_graspable_list(env: TDWMatEnv) -> None:
    belief, apple = _setup(env)
    _take(env, apple, "bob")  # Bob walked off with it, out of Alice's sight
    place(env, "alice", EYE, WEST)  # she faces away from where it lay: no sight tells her
    obs = _look(env, belief, f"[grasp] <{apple.name}> ({apple.id})")
    assert not obs.last_action_ok and obs.last_action_reason == f"<{apple.name}> ({apple.id}) is held"
    assert apple.id not in _grabs(belief) and apple.id not in [o.id for o in belief.free_targets()]
    known = belief.objects[apple.id]
    assert known.held_by == SOMEONE and known.room_id is None and known.position is None
    assert f"({apple.id})" not in belief.progress_text()
    env.world.agents["bob"].hands = [None, None]
    apple.holder = None
    put_thing(env, apple, (-2.0, -2.78))  # dropped where Alice now looks
    _look(env, belief)
    assert apple.id in _grabs(belief) and belief.objects[apple.id].held_by is None


def test_a_grasp_refused_because_the_object_is_in_a_container_or_transported_is_believed(env: TDWMatEnv) -> None:
    belief, apple = _setup(env)
    other = things(env, "target")[1]
    put_thing(env, other, (1.5, -3.5))
    _look(env, belief)
    bowl = things(env, "container")[0]
    _take(env, bowl, "bob")
    apple.inside = bowl.id
    bowl.contents.append(apple.id)
    other.delivered = True
    place(env, "alice", EYE, WEST)
    assert _look(env, belief, f"[grasp] <{apple.name}> ({apple.id})").last_action_cause == "inside"
    assert belief.objects[apple.id].held_by == SOMEONE and apple.id not in _grabs(belief)
    assert _look(env, belief, f"[grasp] <{other.name}> ({other.id})").last_action_cause == "transported"
    assert other.id in belief.transported and other.id not in _grabs(belief)


@pytest.mark.parametrize("moved_to", [KITCHEN, (3.0, -2.78)], ids=["another room", "out of reach"])
def test_a_grasp_refused_as_elsewhere_forgets_a_place_believed_within_reach(moved_to: tuple[float, float]) -> None:
    """Alice believes the apple 1.5 m behind her in her room; it was moved (out of her sight) to another room or
    beyond her reach there. The refusal says its place is wrong: it is no longer offered until seen again (before,
    the refusal had no cause and the grab was offered again, frame after frame)."""
    env = make_env()
    apple = things(env, "target")[0]
    place(env, "bob", KITCHEN)
    place(env, "alice", EYE, EAST)
    put_thing(env, apple, (0.0, -2.78))
    belief = TDWBelief("alice", env.agent_info("alice"))
    _look(env, belief)
    assert apple.id in _grabs(belief)
    put_thing(env, apple, moved_to)
    place(env, "alice", EYE, WEST)
    obs = _look(env, belief, f"[grasp] <{apple.name}> ({apple.id})")
    assert not obs.last_action_ok and obs.last_action_cause == "elsewhere"
    known = belief.objects[apple.id]
    assert known.room_id is None and known.position is None and apple.id not in _grabs(belief)
    if moved_to != KITCHEN:
        place(env, "alice", EYE, EAST)  # she looks its way and sees it at its new place: offered again
        _look(env, belief)
        assert belief.objects[apple.id].position == moved_to and apple.id in _grabs(belief)


def test_a_grasp_refused_from_another_room_than_the_believed_one_keeps_the_place(env: TDWMatEnv) -> None:
    """The refusal says the grasper stood in the wrong room, not that the object is elsewhere than believed."""
    belief, apple = _setup(env)
    place(env, "alice", KITCHEN)
    obs = _look(env, belief, f"[grasp] <{apple.name}> ({apple.id})")
    assert obs.last_action_cause == "elsewhere"
    assert belief.objects[apple.id].position == AHEAD and apple.id in _grabs(belief)


def test_an_object_moved_away_while_the_agent_looks_at_its_place_is_forgotten_there(env: TDWMatEnv) -> None:
    belief, apple = _setup(env)
    put_thing(env, apple, KITCHEN)  # a partner carried it off
    _look(env, belief)
    known = belief.objects[apple.id]
    assert known.room_id is None and known.position is None
    assert known.name == apple.name and known.kind == "item" and apple.id in belief.objects
    assert apple.id not in _grabs(belief) and f"({apple.id})" not in belief.progress_text()
    assert apple.id not in [o.target_id for o in TDWAffordances().observed(belief)]


def test_an_object_outside_the_view_cone_is_not_forgotten(env: TDWMatEnv) -> None:
    belief, apple = _setup(env)
    put_thing(env, apple, KITCHEN)
    place(env, "alice", EYE, WEST)  # its old place is behind her, 3 m off
    _look(env, belief)
    assert belief.objects[apple.id].position == AHEAD and apple.id in _grabs(belief)


def test_detector_perception_forgets_only_within_near_and_after_enough_missed_looks() -> None:
    env = make_env(perception="detector")
    apple = things(env, "target")[0]
    put_thing(env, apple, KITCHEN)  # truly gone; Alice remembers it in the living room
    belief = TDWBelief("alice", env.agent_info("alice"))
    belief.objects[apple.id] = Known(apple.id, apple.name, "item", 2000, AHEAD)
    place(env, "bob", KITCHEN)
    place(env, "alice", EYE, EAST)  # 3 m, in the cone: a detector may just have missed it, however often
    for _ in range(60):
        _look(env, belief)
    assert belief.objects[apple.id].position == AHEAD
    place(env, "alice", (1.0, -2.78), WEST)  # 0.5 m from it, facing away: within NEAR
    _look(env, belief)
    assert belief.objects[apple.id].position == AHEAD  # one miss of food (p_miss 0.845) is no evidence
    looks = 1
    while belief.objects[apple.id].position is not None and looks < 60:
        _look(env, belief)
        looks += 1
    assert belief.objects[apple.id].room_id is None
    assert belief.rules.p_miss["food"] ** looks < STILL_THERE_BELOW <= belief.rules.p_miss["food"] ** (looks - 1)


def test_a_detector_sighting_starts_the_count_of_missed_looks_afresh() -> None:
    env = make_env(perception="detector", p_miss={"food": 0.5, "stuff": 0.5, "container": 0.5, "bed": 0.0,
                                                  "agent": 0.0})
    apple = things(env, "target")[0]
    put_thing(env, apple, KITCHEN)
    belief = TDWBelief("alice", env.agent_info("alice"))
    belief.objects[apple.id] = Known(apple.id, apple.name, "item", 2000, AHEAD)
    place(env, "bob", KITCHEN)
    place(env, "alice", (1.0, -2.78), WEST)
    for _ in range(3):
        _look(env, belief)  # 0.5 ** 3: it may still be there
    assert belief.objects[apple.id].position == AHEAD
    put_thing(env, apple, AHEAD)
    while apple.id not in [o.id for o in _look(env, belief).visible_objects]:
        pass  # the detector at last registers it
    put_thing(env, apple, KITCHEN)
    for _ in range(3):
        _look(env, belief)
    assert belief.objects[apple.id].position == AHEAD  # three misses since the sighting, not six
    _look(env, belief)
    _look(env, belief)
    assert belief.objects[apple.id].position is None  # 0.5 ** 5 < 0.05


def test_a_partner_may_tell_where_a_forgotten_object_is_not_where_a_taken_one_is(env: TDWMatEnv) -> None:
    belief, apple = _setup(env)
    put_thing(env, apple, KITCHEN)
    _look(env, belief)
    said = f"<{apple.name}> ({apple.id}) in the <Kitchen> (1000)."
    read_message(belief, Message(sender="bob", step=belief.time, text=said))
    assert belief.objects[apple.id].room_id == 1000 and apple.id in _grabs(belief)
    belief.objects[apple.id] = Known(apple.id, apple.name, "item", held_by=SOMEONE)
    read_message(belief, Message(sender="bob", step=belief.time, text=said))
    assert belief.objects[apple.id].room_id is None and apple.id not in _grabs(belief)


def test_the_bed_is_never_forgotten(env: TDWMatEnv) -> None:
    belief = TDWBelief("alice", env.agent_info("alice"))
    belief.objects[BED_ID] = Known(BED_ID, "bed", "surface", 2000, (0.0, -2.78))  # a place in view, bed not there
    place(env, "alice", EYE, EAST)
    _look(env, belief)
    assert belief.bed_seen and belief.objects[BED_ID].position == (0.0, -2.78)


def test_a_coela_lite_planner_that_insists_on_a_taken_object_is_refused_once_not_every_frame() -> None:
    """Issue 38's loop: the planner picks the grab of an object a partner took out of sight; the world refuses it,
    and the next action list must no longer offer it (before, the prompt changed only in its frame number)."""
    import re
    from typing import Any

    from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
    from coopgraph.runtime.graph_agent import GraphAgent
    from coopgraph.testing import scripted_lm

    env = make_env()
    apple = things(env, "target")[0]
    place(env, "alice", KITCHEN)
    place(env, "bob", EYE, EAST)
    put_thing(env, apple, (-0.7, -2.78))  # 0.8 m ahead of Bob: a grab is a grasp at once
    grab = f"[gograb] <{apple.name}> ({apple.id})"
    offered: list[bool] = []

    def insist(messages: list[Any], kwargs: dict[str, Any]) -> str:
        options = dict((text, letter) for letter, text in re.findall(r"^([A-Z]{1,2})\. (.*)$",
                                                                      str(messages[-1].content), re.MULTILINE))
        offered.append(grab in options)
        return f"Answer: {options.get(grab, next(iter(options.values()), 'A'))}"

    bob = GraphAgent(load_spec(GRAPHS_DIR / "variants" / "coela-lite.yaml", env="tdw-mat"), lm=scripted_lm(insist),
                     vector_memory=False)
    bob.reset("bob", env.agent_info("bob"), 0)
    obs, *_ = env.step({"alice": "[wait]", "bob": "[wait]"})
    first = bob.act(obs["bob"])
    assert first.kind == "grasp" and first.target_id == apple.id
    _take(env, apple, "alice")  # Alice, in the kitchen, has it before Bob's grasp starts
    action = first
    for _ in range(30):
        obs, *_ = env.step({"alice": "[wait]", "bob": action})
        while not obs["bob"].ready:
            obs, *_ = env.step({"alice": "[wait]"})
        action = bob.act(obs["bob"])
    assert env.world.agents["bob"].invalid_actions == 1
    assert offered[0] and not any(offered[1:])
