"""C-WAH's `Belief.progress_events`: the world says what is progress, in the texts CaPo's designer reads."""

from __future__ import annotations

from typing import Any

from coopgraph import envs
from coopgraph.envs.capabilities import DISCOVERY, SUBGOAL, ProgressEvent
from coopgraph.envs.protocol import HouseObservation, Message, ObjectInfo
from coopgraph.nodes.families.progress import DetectParams, detect

APPLE = ObjectInfo(id=305, name="apple", kind="item", room="kitchen", room_id=60, position=(1.0, 1.0))
CUPCAKE_PLACED = ObjectInfo(id=300, name="cupcake", kind="item", room="livingroom", room_id=110,
                            position=(2.0, 2.0), on=111)
PUT_CUPCAKE = "[put] <cupcake> (300) <coffeetable> (111)"


def _start() -> tuple[HouseObservation, Any]:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    return observations["alice"], envs.agent_kit("cwah", env.agent_info("alice"))


def _at(obs: HouseObservation, time: int, room: str, room_id: int, visible: list[ObjectInfo],
        **more: Any) -> HouseObservation:
    return obs.model_copy(update={"time": time, "room": room, "room_id": room_id, "visible_objects": visible, **more})


def _events(kit: Any, obs: HouseObservation) -> list[ProgressEvent]:
    kit.belief.update(obs)
    return kit.belief.progress_events(obs)


def test_the_first_call_is_the_baseline_even_with_goal_objects_in_view() -> None:
    obs, kit = _start()
    assert _events(kit, obs) == []
    assert kit.belief.goal_objects(), "test/0 should start with goal objects in view"
    assert _events(kit, obs) == []  # nothing new since
    assert _events(kit, _at(obs, 1, "bathroom", 160, [])) == []  # a new room is not progress


def test_a_goal_object_found_is_a_discovery_once_and_own_only_when_seen() -> None:
    obs, kit = _start()
    _events(kit, obs)
    seen = _at(obs, 1, "kitchen", 60, [APPLE])
    assert _events(kit, seen) == [ProgressEvent(DISCOVERY, "found <apple> (305) in the kitchen", True)]
    assert _events(kit, seen) == []
    kit.read_message(kit.belief, Message(sender="bob", text="I saw <wine> (999) on <desk> (11).", step=1))
    assert kit.belief.progress_events(seen) == [ProgressEvent(DISCOVERY, "found <wine> (999) on <desk> (11)", False)]


def test_a_subgoal_done_by_my_put_is_own_and_says_what_i_put() -> None:
    obs, kit = _start()
    _events(kit, obs)
    mine = _at(obs, 3, "livingroom", 110, [CUPCAKE_PLACED], last_action=PUT_CUPCAKE, last_action_ok=True)
    assert _events(kit, mine) == [ProgressEvent(SUBGOAL, "put <cupcake> (300) on <coffeetable> (111), 1/1 done",
                                                True)]


def test_a_subgoal_done_by_someone_else_is_counted_but_not_own() -> None:
    obs, kit = _start()
    _events(kit, obs)
    failed = _at(obs, 3, "livingroom", 110, [CUPCAKE_PLACED], last_action=PUT_CUPCAKE, last_action_ok=False)
    assert _events(kit, failed) == [ProgressEvent(SUBGOAL, "1/1 cupcake on <coffeetable> (111)", False)]


def test_detect_keeps_only_the_kinds_its_params_ask_for() -> None:
    both_done = "put <cupcake> (300) on <coffeetable> (111), 1/1 done"
    for params, expected in ((DetectParams(discoveries=False), [both_done]),
                             (DetectParams(subgoals=False), ["found <apple> (305) in the livingroom"]),
                             (DetectParams(), ["found <apple> (305) in the livingroom", both_done])):
        obs, kit = _start()
        _events(kit, obs)
        apple_here = APPLE.model_copy(update={"room_id": 110})
        both = _at(obs, 3, "livingroom", 110, [CUPCAKE_PLACED, apple_here], last_action=PUT_CUPCAKE,
                   last_action_ok=True)
        kit.belief.update(both)
        assert detect(kit.belief, both, params) == (expected, expected)
