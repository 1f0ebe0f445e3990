"""The sticky-learner bench: what it counts as a repeat of a directive that did nothing, and that it tells the
published llmco from llmco-steady on a layout where the learner's loop is broken."""

from __future__ import annotations

from coopgraph.evals.bench.sticky_learner import count, play


def test_a_repeat_is_an_idle_end_equal_to_the_end_just_before_it() -> None:
    ends = [(3, "load c0", "plate; c0 empty"), (4, "load c0", "plate; c0 empty"), (6, "load c0", "plate; c0 empty"),
            (7, "move away", None), (9, "load c0", "plate; c0 empty"),  # a move in between: not a repeat
            (12, "load c0", "plate; c0 1 onion"), (13, "wait", None), (14, "wait", None)]  # a new situation
    found = count(ends, score=20)
    assert (found.idle, found.repeats, found.repeat_ticks, found.score) == (5, 2, 3, 20)


def test_coordination_ring_the_published_loop_and_the_steady_variant_without_it() -> None:
    published, steady = play("llmco", "coordination_ring", ticks=120), play("llmco-steady", "coordination_ring",
                                                                            ticks=120)
    assert published.repeats >= 80 and steady.repeats == 0
