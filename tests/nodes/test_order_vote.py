"""Asking in rotated option orders: every position visited, votes mapped back, invalid answers never vote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy

from coopgraph.graphs.compiler import compile_spec
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.order_vote import choose_in_orders, rotation
from coopgraph.testing import scripted_lm

OPTIONS = ["[goexplore] <kitchen> (11)", "[gograb] <apple> (302)", "[gocheck] <fridge> (40)", "[send_message]"]


def _picks(wanted: str | None, shown_log: list[list[str]] | None = None):  # noqa: ANN202
    def ask(shown: list[str]) -> dspy.Prediction:
        if shown_log is not None:
            shown_log.append(shown)
        if wanted is None or wanted not in shown:
            return dspy.Prediction(valid=False, index=None, raw="no idea", errors=["unusable answer"])
        return dspy.Prediction(valid=True, index=shown.index(wanted), reasoning=f"{wanted} is it")
    return ask


def test_rotations_are_permutations_that_move_every_option_to_the_front() -> None:
    for n in range(1, 8):
        orders = [rotation(n, k, n) for k in range(n)]
        assert all(sorted(order) == list(range(n)) for order in orders)
        assert sorted(order[0] for order in orders) == list(range(n))
    assert rotation(4, 0, 2) == [0, 1, 2, 3] and rotation(4, 1, 2) == [2, 3, 0, 1]


def test_a_content_answer_wins_in_every_order_and_maps_back() -> None:
    shown: list[list[str]] = []
    vote = choose_in_orders(_picks(OPTIONS[2], shown), OPTIONS, orders=3)
    assert vote.index == 2 and vote.votes == [2, 2, 2] and vote.reasoning == f"{OPTIONS[2]} is it"
    assert len({tuple(s) for s in shown}) == 3 and all(sorted(s) == sorted(OPTIONS) for s in shown)


def test_position_bias_is_outvoted() -> None:
    def biased(shown: list[str]) -> dspy.Prediction:  # says "A" unless the apple is in view past A
        index = shown.index(OPTIONS[1]) if shown.index(OPTIONS[1]) in (2, 3) else 0
        return dspy.Prediction(valid=True, index=index, reasoning="")

    assert choose_in_orders(biased, OPTIONS, orders=1).index == 0  # one order: the bias decides
    assert choose_in_orders(biased, OPTIONS, orders=3).index == 1  # rotations: the apple outvotes "A"


def test_invalid_answers_do_not_vote_and_all_invalid_is_invalid() -> None:
    flaky_calls = iter([False, True, True])

    def flaky(shown: list[str]) -> dspy.Prediction:
        if next(flaky_calls):
            return _picks(OPTIONS[3])(shown)
        return dspy.Prediction(valid=False, index=None, raw="I like turtles", errors=["unusable answer"])

    vote = choose_in_orders(flaky, OPTIONS, orders=3)
    assert vote.index == 3 and vote.votes == [None, 3, 3] and vote.errors == ["unusable answer"]
    nothing = choose_in_orders(_picks(None), OPTIONS, orders=2)
    assert nothing.index is None and not nothing.valid and nothing.raw == "no idea"
    assert choose_in_orders(_picks(OPTIONS[0]), OPTIONS[:2], orders=5).votes == [0, 0]  # at most one per option


def test_the_node_asks_once_per_order_and_traces_the_votes(tmp_path: Path, tracer: Any) -> None:
    spec = tmp_path / "voting.yaml"
    spec.write_text("name: voting\nentry: choose\nnodes:\n  choose:\n    use: planning.choose_action\n"
                    "    params: {reasoning_chars: 0, orders: 3}\nedges:\n  - choose -> END\n"
                    "inputs: [facts, actions]\n", encoding="utf-8")

    def model(messages: Any, kwargs: Any) -> str:
        lines = [line for line in messages[-1].content.splitlines() if "<apple>" in line]
        return f"Answer: {lines[0][0]}"  # finds the apple wherever it is listed

    lm = scripted_lm(model, tracer=tracer)
    out = compile_spec(spec).invoke({"facts": {"goal": "apple"}, "actions": OPTIONS},
                                    context=AgentResources(lm=lm, tracer=tracer))
    assert out["choice"] == OPTIONS[1] and out["invalid"] is False
    assert len(lm.chat_model.calls) == 3
    votes = [e for e in tracer.events if e["type"] == "order_votes"]
    assert votes and votes[0]["votes"] == [1, 1, 1] and votes[0]["winner"] == 1
