"""The terminal front end: numbered lines in, answers out; bad lines are refused; end of input idles."""

from __future__ import annotations

import io

from coopgraph.play.terminal import TerminalSeat
from coopgraph.play.turn import Turn

TURN = Turn(env="overcooked", agent="alice", agent_name="Alice", step=4, horizon=10, goal="serve soup",
            view=["You hold nothing."], options=["[pick] <onion> (1)", "[wait]"], message_limit=8,
            moves={"ArrowUp": "north", " ": "interact"})


def _seat(text: str) -> tuple[TerminalSeat, io.StringIO]:
    out = io.StringIO()
    return TerminalSeat(io.StringIO(text), out), out


def test_lines_become_answers() -> None:
    seat, out = _seat("2\nm hello there partner\nnorth\n")
    first = seat.ask(TURN, None)
    assert first is not None and first.choice == 2
    answers = [seat.ask(TURN, None) for _ in range(2)]
    assert answers[0] is not None and answers[0].message == "hello there partner"
    assert answers[1] is not None and answers[1].move == "north"
    shown = out.getvalue()
    assert "1. [pick] <onion> (1)" in shown and "a move (north, interact)" in shown
    assert "cut to 8 characters" in shown


def test_bad_lines_are_refused_and_asked_again() -> None:
    seat, out = _seat("9\nfly\n1\n")
    answer = seat.ask(TURN, None)
    assert answer is not None and answer.choice == 1
    assert "option 9 is not listed (1-2)" in out.getvalue() and "not understood: 'fly'" in out.getvalue()


def test_end_of_input_idles_from_then_on() -> None:
    seat, out = _seat("")
    assert seat.ask(TURN, None) is None and seat.ask(TURN, None) is None
    assert out.getvalue().count("input ended") == 1


def test_the_step_limit_spends_the_step_waiting() -> None:
    import os

    read, write = os.pipe()
    with os.fdopen(read) as lines, os.fdopen(write, "w"):
        seat = TerminalSeat(lines, io.StringIO())
        assert seat.ask(TURN, 0.05) is None


class _Endless(io.StringIO):
    """`yes 1` as a stream: lines without end, counting how many were read."""

    def __init__(self) -> None:
        super().__init__()
        self.read_lines = 0

    def __iter__(self) -> _Endless:
        return self

    def __next__(self) -> str:
        self.read_lines += 1
        return "1\n"


def test_endless_input_is_read_only_as_the_episode_asks() -> None:
    import time

    endless = _Endless()
    seat = TerminalSeat(endless, io.StringIO())
    answers = [seat.ask(TURN, None) for _ in range(3)]
    assert all(a is not None and a.choice == 1 for a in answers)
    time.sleep(0.2)  # the reader thread had time to run ahead, if it could
    assert endless.read_lines <= len(answers) + 2
