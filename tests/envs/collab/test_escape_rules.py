"""Collab Escape's rules: fixes on consecutive turns or together, the killer's choice, loss checked before win."""

from __future__ import annotations

import random

from coopgraph.envs.collab import escape
from coopgraph.envs.collab.escape import EscapeMove, EscapeState, KillerPlan
from coopgraph.envs.collab.maps import ESCAPE_CODED, ESCAPE_DESCRIBED

WAIT = EscapeMove()
FAR = KillerPlan(9, None)  # a killer plan that stays away from rooms 1-7


def _state(alice: int, bob: int, killer: int = 9, fixes: tuple[int, int] = (0, 0)) -> EscapeState:
    return EscapeState((alice, bob), killer, ((1, fixes[0]), (6, fixes[1])))


def test_fix_then_move_then_fix_does_not_repair_but_two_consecutive_fixes_do() -> None:
    state = _state(1, 2)
    state, _ = escape.step(state, ESCAPE_CODED, FAR, (EscapeMove("fix", 1), WAIT))
    assert state.generator_fixes[1] == 1
    state, _ = escape.step(state, ESCAPE_CODED, FAR, (EscapeMove("move", 2), WAIT))
    assert state.generator_fixes[1] == 0  # a turn without a fix undoes it
    state, _ = escape.step(state, ESCAPE_CODED, FAR, (EscapeMove("move", 1), WAIT))
    state, _ = escape.step(state, ESCAPE_CODED, FAR, (EscapeMove("fix", 1), WAIT))
    assert not state.repaired(1)
    state, _ = escape.step(state, ESCAPE_CODED, FAR, (EscapeMove("fix", 1), WAIT))
    assert state.repaired(1)


def test_both_players_fixing_in_one_turn_repair_at_once_and_a_fix_elsewhere_is_a_wait() -> None:
    state, _ = escape.step(_state(6, 6), ESCAPE_CODED, FAR, (EscapeMove("fix", 6), EscapeMove("fix", 6)))
    assert state.repaired(6) and not state.repaired(1)
    assert not escape.valid(_state(2, 6), ESCAPE_CODED, 0, EscapeMove("fix", 2))
    assert not escape.valid(state, ESCAPE_CODED, 1, EscapeMove("fix", 6))  # repaired already


def test_loss_is_checked_before_win() -> None:
    state = _state(6, 3, fixes=(2, 2))
    after, outcome = escape.step(state, ESCAPE_CODED, KillerPlan(7, 0), (EscapeMove("move", 7), WAIT))
    assert after.exit_open and after.players[0] == 7 and outcome == "caught"
    _, outcome = escape.step(state, ESCAPE_CODED, KillerPlan(5, None), (EscapeMove("move", 7), WAIT))
    assert outcome == "escaped"


def test_the_killer_chases_one_player_it_sees_keeps_its_target_when_both_are_near_and_else_wanders() -> None:
    rng = random.Random(0)
    assert escape.killer_plan(_state(5, 1, killer=6), ESCAPE_CODED, rng) == KillerPlan(5, 0)
    assert escape.killer_plan(_state(1, 7, killer=6), ESCAPE_CODED, rng) == KillerPlan(7, 1)
    both = _state(5, 7, killer=6)
    assert escape.killer_plan(both, ESCAPE_CODED, rng) == KillerPlan(5, 0)  # Alice on a first sighting
    kept = EscapeState(both.players, 6, both.fixes, target=1)
    assert escape.killer_plan(kept, ESCAPE_CODED, rng) == KillerPlan(7, 1)
    wander = [escape.killer_plan(_state(1, 2, killer=6), ESCAPE_CODED, random.Random(s)).room for s in range(20)]
    assert set(wander) == {5, 7} and wander == [escape.killer_plan(_state(1, 2, killer=6), ESCAPE_CODED,
                                                                   random.Random(s)).room for s in range(20)]


def test_the_coded_graph_is_one_way_where_the_described_one_is_not() -> None:
    assert 3 in ESCAPE_CODED[7] and 7 not in ESCAPE_CODED[3] and 7 in ESCAPE_CODED[8] and 8 not in ESCAPE_CODED[7]
    assert all(a in ESCAPE_DESCRIBED[b] for a, links in ESCAPE_DESCRIBED.items() for b in links)
    # the killer in 7 sees a player in 3 on the coded graph only
    assert escape.killer_plan(_state(3, 1, killer=7), ESCAPE_CODED, random.Random(0)).chasing == 0
    assert escape.killer_plan(_state(3, 1, killer=7), ESCAPE_DESCRIBED, random.Random(0)).chasing is None
