"""C-WAH and TDW-MAT reasoning questions: answers agree with the frozen belief and the partner's recorded plan."""

from __future__ import annotations

import copy
import random
import re

import pytest

from coopgraph import envs
from coopgraph.envs.tdw_mat.affordances import GRAB, PUT, TDWAffordances
from coopgraph.envs.tdw_mat.experts.rhp import BED, CONTAINER, TARGET
from coopgraph.evals.reasoning import generate_cwah, generate_tdw_mat
from coopgraph.evals.reasoning.generate_cwah import QuizMHP
from coopgraph.evals.reasoning.generate_rows import count_choice
from coopgraph.evals.reasoning.generate_tdw_mat import QuizRHP, best_plan, sub_goal
from coopgraph.runtime.episode_loop import run_episode

_ID = re.compile(r"\((\d+)\)\?$")


def answer(choice: object) -> str:
    return choice.options[choice.correct[0]]  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def mhp_team() -> list[QuizMHP]:
    team = [QuizMHP(), QuizMHP()]
    run_episode(envs.make("cwah", episode="train/1", num_agents=2), team, seed=0)
    return team


@pytest.fixture(scope="module")
def rhp_team() -> list[QuizRHP]:
    team = [QuizRHP(), QuizRHP()]
    run_episode(envs.make("tdw-mat", episode="train/0", num_agents=2), team, seed=0)
    return team


def test_counts_hold_the_answer_at_varied_places() -> None:
    rng = random.Random(0)
    places = set()
    for value in (0, 0, 0, 1, 5, 5, 9):
        choice = count_choice(value, rng)
        assert answer(choice) == str(value) and len(choice.options) == 4
        assert sorted(int(o) for o in choice.options) == list(range(min(int(o) for o in choice.options),
                                                                     min(int(o) for o in choice.options) + 4))
        places.add(choice.correct[0])
    assert len(places) > 1


def test_cwah_ec_answers_come_from_the_frozen_belief(mhp_team: list[QuizMHP]) -> None:
    rng = random.Random(1)
    kinds = set()
    for _, belief, _, _ in mhp_team[0].choices + mhp_team[1].choices:
        where = generate_cwah.where_question(belief, rng)
        if where is not None:
            obj = belief.objects[int(_ID.search(where[0]).group(1))]  # type: ignore[union-attr]
            assert answer(where[1]) == belief.rooms[obj.room_id].label  # type: ignore[index]
            kinds.add("where")
        left = generate_cwah.remaining_question(belief, rng)
        assert int(answer(left[1])) == sum(belief.remaining(p) for p in belief.goal)
        text, choice = generate_cwah.target_question(belief, rng)
        target = belief.objects.get(int(re.search(r"\((\d+)\) that", text).group(1)))  # type: ignore[union-attr]
        seen = target is not None and target.room_id is not None
        assert answer(choice) == (belief.rooms[target.room_id].label if seen else generate_cwah.NOT_SEEN)  # type: ignore[union-attr,index]
        kinds.add("seen" if seen else "unseen")
        assert 3 <= len(choice.options) <= 5
    assert kinds == {"where", "seen", "unseen"}


def test_cwah_beliefs_are_frozen_at_the_decision(mhp_team: list[QuizMHP]) -> None:
    steps = [belief.step for _, belief, _, _ in mhp_team[0].choices]
    assert steps == sorted(steps) and len(set(steps)) > 3
    first, last = mhp_team[0].choices[0][1], mhp_team[0].belief
    assert len(first.explored_rooms) < len(last.explored_rooms)


def test_cwah_tom_is_the_partner_plan_and_jp_the_mhp_choice(mhp_team: list[QuizMHP]) -> None:
    rows = generate_cwah.episode_rows("train/1", seed=0, per_episode=50)
    assert len(rows) > 5
    chosen = {(b.agent_name, t): c.text for m in mhp_team for t, b, _, c in m.choices}
    for row in rows:
        step, name = re.fullmatch(r"step (\d+), (\w+)", row["Concept"]).groups()  # type: ignore[union-attr]
        assert row["JP Answer"] == chosen[(name, int(step))]
        partner = next(m for m in mhp_team if m.belief.agent_name != name)
        plan = partner.plans[int(step)]
        assert plan is not None
        room = partner.belief.rooms[plan.room_id].label if plan.room_id is not None else None
        assert row["TOM Answer"] in {plan.text, room}
        for kind in ("EC", "TOM", "JP"):
            letters = re.findall(r"^([A-E])\. ", row[f"{kind} Question"], re.MULTILINE)
            assert 3 <= len(letters) <= 5 and row[f"{kind} Answer Ordinal"] in letters
        assert row["Game"] == "C-WAH" and row["Map"] == "train/1"


def test_cwah_rows_are_deterministic_for_a_seed() -> None:
    assert generate_cwah.episode_rows("train/2", seed=3, per_episode=4) == \
        generate_cwah.episode_rows("train/2", seed=3, per_episode=4)


def test_tdw_sub_goal_follows_rhp_rules(rhp_team: list[QuizRHP]) -> None:
    belief = copy.deepcopy(next(b for _, b in rhp_team[0].choices
                                if sum(o.kind == "item" for o in b.objects.values()) >= 2
                                and any(o.kind == "container" for o in b.objects.values())))
    items = [o.id for o in belief.objects.values() if o.kind == "item"][:2]
    box = next(o.id for o in belief.objects.values() if o.kind == "container")
    belief.transported, belief.time = set(), 0
    belief.hand_items, belief.contents = [], {}
    assert sub_goal(belief) == CONTAINER
    belief.time = belief.horizon - generate_tdw_mat.CONTAINERS_BEFORE
    assert sub_goal(belief) == TARGET
    belief.time = 0
    belief.hand_items, belief.contents = [box], {box: items[:1]}
    assert sub_goal(belief) == TARGET
    belief.contents = {box: [items[0]] * belief.rules.container_capacity}
    assert sub_goal(belief) == BED
    belief.hand_items, belief.contents = items, {}
    assert sub_goal(belief) == BED
    belief.hand_items = items[:1]
    assert sub_goal(belief) == CONTAINER
    belief.time = belief.horizon - generate_tdw_mat.BED_AFTER + 1
    assert sub_goal(belief) == BED


def test_tdw_answers_agree_with_the_frozen_belief(rhp_team: list[QuizRHP]) -> None:
    rng = random.Random(2)
    grabs = 0
    for _, belief in rhp_team[0].choices + rhp_team[1].choices:
        options = TDWAffordances().available(belief)
        best = best_plan(belief, options)
        if best is not None and best[0].kind == GRAB:
            same = [o for o in options if o.kind == GRAB
                    and belief.objects[o.target_id].kind == belief.objects[best[0].target_id].kind]  # type: ignore[index]
            assert best[0].distance == min(o.distance for o in same)  # type: ignore[type-var]
            grabs += 1
        if any(o.kind == PUT for o in options):
            assert best is not None and best[0].kind == PUT
        count = generate_tdw_mat.transported_question(belief, rng)[1]
        assert int(answer(count)) == len(belief.transported)
        box = generate_tdw_mat.container_question(belief)[1]
        held = [i for i in belief.hand_items if belief.objects[i].kind == "container"]
        expected = generate_tdw_mat.NO_CONTAINER if not held else generate_tdw_mat.FULL if len(
            belief.contents.get(held[0], [])) >= belief.rules.container_capacity else generate_tdw_mat.ROOM_FOR_MORE
        assert answer(box) == expected
    assert grabs > 3


def test_tdw_tom_is_the_partner_sub_goal(rhp_team: list[QuizRHP]) -> None:
    rows = generate_tdw_mat.episode_rows("train/0", seed=0, per_episode=60)
    assert len(rows) > 5
    for row in rows:
        frame, name = re.fullmatch(r"frame (\d+), (\w+)", row["Concept"]).groups()  # type: ignore[union-attr]
        partner = next(m for m in rhp_team if m.belief.name != name)
        assert row["TOM Answer"] == generate_tdw_mat.SUB_GOALS[partner.sub_goal_at(int(frame))]  # type: ignore[index]
        assert row["Game"] == "TDW-MAT" and row["Split"] in {"train", "test"}
    assert generate_tdw_mat.episode_rows("train/0", seed=0, per_episode=3) == rows[:3]  # same play, same sample
