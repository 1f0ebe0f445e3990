"""The generated reasoning set: LLM-Co's format, 3-5 options, answers that agree with the world's state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.evals.reasoning import generate_overcooked
from coopgraph.evals.reasoning.generate_overcooked import QuizCook, dispenser_question, pot_question
from coopgraph.evals.reasoning.generate_rows import collab_rows, generate, write_rows
from coopgraph.evals.reasoning.questions import load_questions

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "reasoning" / "data" / "coopgraph_reasoning.csv"


@pytest.fixture(scope="module")
def cooks() -> list[QuizCook]:
    from coopgraph import envs
    from coopgraph.runtime.episode_loop import run_episode

    team = [QuizCook(), QuizCook()]
    run_episode(envs.make("overcooked", layout="asymmetric_advantages", horizon=120), team, seed=0)
    return team


def test_ec_answers_follow_the_belief(cooks: list[QuizCook]) -> None:
    import random

    checked = 0
    for _, belief, _, _ in cooks[0].choices:
        assert isinstance(belief, OvercookedBelief)
        pot = pot_question(belief, random.Random(0))
        if pot is not None:
            label = re.search(r"does (c\d+) need", pot[0]).group(1)  # type: ignore[union-attr]
            assert int(pot[1].options[pot[1].correct[0]]) == 3 - belief.pots[label].onions
            checked += 1
        near = dispenser_question(belief)
        if near is not None:
            distances = {o: belief.my_reach(o).distance for o in belief.kitchen.ids("o")}
            answer = near[1].options[near[1].correct[0]]
            if "equally" not in answer:
                label = answer.split()[2]
                assert distances[label] == min(d for d in distances.values() if d is not None)
            checked += 1
    assert checked >= 4


def test_jp_is_the_greedy_choice_and_tom_the_partner_directive(cooks: list[QuizCook]) -> None:
    rows = generate_overcooked.layout_rows("asymmetric_advantages", seed=0, per_layout=50, horizon=120)
    assert rows
    me = {c[0]: c for c in cooks[0].choices} | {c[0]: c for c in cooks[1].choices}
    for row in rows:
        tick = int(row["Concept"].split()[1].rstrip(","))
        ordinal = row["JP Answer Ordinal"]
        assert row["JP Answer"] in {me[tick][3]} | {c[3] for k in (0, 1) for c in cooks[k].choices if c[0] == tick}
        assert re.search(rf"^{ordinal}\. {re.escape(row['JP Answer'])}$", row["JP Question"], re.MULTILINE)
        partners = {c.plans.get(tick) for c in cooks}
        assert row["TOM Answer"] in partners


def test_the_shipped_set_loads_with_splits_and_two_to_five_options() -> None:
    questions, skipped = load_questions(SHIPPED)
    assert not skipped and len(questions) >= 400
    assert {q.kind for q in questions} == {"EC", "TOM", "JP"}
    assert {q.game for q in questions} == {"Overcooked", "C-WAH", "TDW-MAT", "CollabGames"}
    assert all(2 <= len(q.letters) <= 5 for q in questions)
    assert all(len(q.letters) >= 3 for q in questions if q.game != "CollabGames")
    assert {q.split for q in questions if q.game == "CollabGames"} == {"train", "test"}


def test_generation_is_deterministic_and_round_trips(tmp_path: Path) -> None:
    worlds = {"overcooked": lambda seed, n: generate_overcooked.layout_rows("cramped_room", seed=seed,
                                                                          per_layout=n, horizon=80)}
    first, second = generate(0, 3, worlds), generate(0, 3, worlds)
    assert first == second and len(first) == 3
    summary = write_rows(first, tmp_path / "set.csv")
    questions, skipped = load_questions(tmp_path / "set.csv")
    assert summary["questions"] == len(questions) == 9 and not skipped


def test_collab_rows_are_skipped_while_the_module_is_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("coopgraph.evals.reasoning.generate_rows.COLLAB_MODULE", "coopgraph.envs.no_such_world.x")
    assert collab_rows(0, 5) == []
