"""Collab Capture's rules: the thief's flight against planned rooms, doors and buttons, capture by a swap."""

from __future__ import annotations

from coopgraph.envs.collab import capture
from coopgraph.envs.collab.capture import CaptureMove, start_state
from coopgraph.envs.collab.capture_plan import turns_to_capture
from coopgraph.envs.collab.episodes import capture_episode

STAY = CaptureMove()


def test_with_both_players_staying_the_thief_goes_3_4_3_4_and_is_still_free_after_30_turns_in_room_4() -> None:
    _, state = capture_episode("test/0")
    rooms = []
    for _ in range(30):
        state, caught = capture.step(state, (STAY, STAY))
        assert not caught
        rooms.append(state.thief)
    assert rooms[:4] == [3, 4, 3, 4] and rooms[-1] == 4


def test_pressing_the_button_in_room_9_toggles_door_1_2_and_a_press_elsewhere_is_invalid() -> None:
    state = start_state(9, 8, 4, {(1, 2): False, (3, 4): True})
    press = CaptureMove("press")
    after, _ = capture.step(state, (press, STAY))
    assert after.open_doors == {(1, 2): True, (3, 4): True}
    again, _ = capture.step(after, (press, press))
    assert again.open_doors == {(1, 2): False, (3, 4): False}
    assert not capture.valid(start_state(5, 8, 4, {(1, 2): False, (3, 4): True}), 0, press)


def test_the_thief_flees_by_room_number_against_planned_rooms_and_graph_distance_is_an_option() -> None:
    state = start_state(5, 7, 3, {(1, 2): True, (3, 4): True})
    # planned rooms 4 and 7: room 2 is min(|2-4|, |2-7|) = 2 away, room 4 is where a player goes
    assert capture.thief_plan(state, (4, 7)) == 2
    # Alice in 1 and Bob in 8: by number room 4 (min 3) beats room 2 (min 1); in moves room 2 is 1 from Alice
    far = start_state(1, 8, 3, {(1, 2): True, (3, 4): True})
    assert capture.thief_plan(far, (1, 8), "number") == 4
    assert capture.thief_plan(far, (1, 8), "graph") == 4
    near = start_state(6, 9, 3, {(1, 2): True, (3, 4): True})
    assert capture.thief_plan(near, (6, 9), "number") == 2 and capture.thief_plan(near, (6, 9), "graph") == 2
    assert capture.thief_plan(start_state(6, 9, 8, {(1, 2): True, (3, 4): True}), (6, 9)) == 7  # its only way


def test_a_swap_of_rooms_is_a_capture_and_a_move_through_a_closed_door_is_a_stay() -> None:
    state = start_state(7, 1, 8, {(1, 2): True, (3, 4): True})  # room 8's only way out is Alice's room 7
    after, caught = capture.step(state, (CaptureMove("move", 8), STAY))
    assert (after.players[0], after.thief, caught) == (8, 7, True)
    assert not after.caught()  # nobody shares a room: only the swap catches it
    shut = start_state(1, 9, 4, {(1, 2): False, (3, 4): True})
    assert capture.planned_room(shut, 0, CaptureMove("move", 2)) == 1


def test_the_thief_moves_through_a_door_closed_this_turn() -> None:
    after, _ = capture.step(start_state(9, 5, 2, {(1, 2): True, (3, 4): True}), (CaptureMove("press"), STAY))
    assert after.thief == 1 and after.open_doors[(1, 2)] is False


def test_the_planner_finds_the_shortest_capture_of_every_start() -> None:
    assert [turns_to_capture(capture_episode(f"test/{i}")[1]) for i in range(5)] == [3, 1, 2, 3, 3]
