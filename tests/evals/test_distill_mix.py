"""A DAgger round's mix: one point per distinct prompt and label, a seeded draw per file, bad sources named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.distill.mix import MixError, main, mix


def point(n: int, label: str = "wait.", split: str = "train", state: str | None = None) -> dict[str, Any]:
    content = state if state is not None else f"state {n}"
    return {"id": f"overcooked/x/alice/{n:03d}", "split": split, "options": ["wait.", "move away."],
            "expert_choice": label, "messages": [{"role": "user", "content": content}], "facts": {"step": n}}


def write(path: Path, points: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in points))
    return path


def test_a_loop_recorded_many_times_is_one_point_and_a_different_label_is_another(tmp_path: Path) -> None:
    loop = [point(n, state="stuck by the pot") for n in range(50)]
    source = write(tmp_path / "dagger.jsonl", [*loop, point(99, label="move away.", state="stuck by the pot")])
    points, report = mix([f"{source}:all"], [])
    assert [p["id"] for p in points] == ["overcooked/x/alice/000", "overcooked/x/alice/099"]
    assert report == [f"{source} (train): 2 distinct points"]


def test_each_file_gives_its_seeded_count_from_its_split(tmp_path: Path) -> None:
    source = write(tmp_path / "expert.jsonl", [point(n) for n in range(40)] + [point(100 + n, split="validation")
                                                                             for n in range(10)])
    first, _ = mix([f"{source}:5"], [f"{source}:3"], seed=1)
    again, _ = mix([f"{source}:5"], [f"{source}:3"], seed=1)
    assert first == again and len(first) == 8
    assert [p["split"] for p in first] == ["train"] * 5 + ["validation"] * 3


@pytest.mark.parametrize("source, problem", [("nofile.jsonl:3", "no such decisions file"),
                                             ("{file}", "expected FILE:N"), ("{file}:many", "a number or 'all'")])
def test_bad_sources_are_named(tmp_path: Path, source: str, problem: str) -> None:
    good = write(tmp_path / "a.jsonl", [point(1)])
    with pytest.raises(MixError, match=problem):
        mix([source.format(file=good) if "{" in source else str(tmp_path / source)], [])


def test_a_broken_line_is_reported_with_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "b.jsonl"
    broken.write_text(json.dumps(point(1)) + "\n{not json\n")
    assert main([f"{broken}:all", "-o", str(tmp_path / "out.jsonl")]) == 2
    assert f"{broken}:2: not a JSON decision point" in capsys.readouterr().err


def test_learner_sources_give_only_the_states_the_learner_reached(tmp_path: Path) -> None:
    rollin = [{**point(n), "rollin": "learner" if n % 2 else "expert"} for n in range(10)]
    source = write(tmp_path / "dagger.jsonl", rollin)
    points, report = mix([], [], learner=[f"{source}:all"])
    assert {p["rollin"] for p in points} == {"learner"} and len(points) == 5
    assert report == [f"{source} (train, learner states): 5 distinct points"]


COMMON, RARE, RARER = "hands empty; pots need onions", "hands empty; nothing needed", \
    "holding onion; no pot needs it, nowhere to set it down"


def classed(n: int, situation: str, split: str = "train") -> dict[str, Any]:
    return {**point(n, split=split), "situation": situation, "rollin": "learner"}


def test_a_balanced_draw_takes_every_rare_situation_before_more_of_a_common_one(tmp_path: Path) -> None:
    """Round 3's roll-ins: an onion for a pot that needs one at nearly every choice, the two situations the planner
    failed in a handful of times; a plain draw of 10 leaves them to chance, a balanced one takes them all."""
    pool = ([classed(n, COMMON) for n in range(90)] + [classed(100 + n, RARE) for n in range(3)]
            + [classed(200 + n, RARER) for n in range(2)])
    source = write(tmp_path / "dagger.jsonl", pool)
    points, report = mix([], [], learner=[f"{source}:10"], balance=True)
    shares = {s: sum(p["situation"] == s for p in points) for s in (COMMON, RARE, RARER)}
    assert shares == {COMMON: 5, RARE: 3, RARER: 2}
    assert [p["id"] for p in points] == sorted(p["id"] for p in points)  # file order, as a plain draw keeps
    assert report == [f"{source} (train, learner states): 10 distinct points", f"      3  {RARE}",
                      f"      5  {COMMON}", f"      2  {RARER}"]  # by situation name
    again, _ = mix([], [], learner=[f"{source}:10"], balance=True)
    assert again == points
    plain, _ = mix([], [], learner=[f"{source}:10"], seed=0)
    assert sum(p["situation"] != COMMON for p in plain) < 5


def test_balance_leaves_the_validation_draw_in_the_rollins_own_proportions(tmp_path: Path) -> None:
    pool = [classed(n, COMMON, "validation") for n in range(20)] + [classed(50, RARE, "validation")]
    source = write(tmp_path / "dagger.jsonl", pool)
    balanced_draw, _ = mix([], [f"{source}:5"], balance=True)
    plain_draw, _ = mix([], [f"{source}:5"])
    assert balanced_draw == plain_draw


def test_balancing_points_recorded_without_a_situation_names_the_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "round3.jsonl", [classed(1, COMMON), point(2)])
    assert main([f"{old}:1", "--balance", "-o", str(tmp_path / "out.jsonl")]) == 2
    assert f"{old}:2: this decision point has no `situation`" in capsys.readouterr().err
    assert main([f"{old}:1", "-o", str(tmp_path / "out.jsonl")]) == 0  # without --balance it mixes as before


def test_a_weighted_situation_repeats_its_train_points_and_nothing_else(tmp_path: Path) -> None:
    pool = [classed(n, COMMON) for n in range(4)] + [classed(10, RARE), classed(11, RARE, "validation")]
    source = write(tmp_path / "dagger.jsonl", pool)
    out = tmp_path / "mix.jsonl"
    assert main([f"{source}:all", "--validation", f"{source}:all", "--weight", "hands empty; nothing=3",
                 "-o", str(out)]) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    ids = [p["id"] for p in written]
    assert ids.count("overcooked/x/alice/010") == 3  # the rare train point, three times in all
    assert ids.count("overcooked/x/alice/011") == 1  # held-out accuracy still counts each point once
    assert all(ids.count(f"overcooked/x/alice/{n:03d}") == 1 for n in range(4))


@pytest.mark.parametrize("weight", ["hands empty", "hands empty=0", "=2", "hands empty=two"])
def test_a_malformed_weight_is_refused_and_writes_nothing(tmp_path: Path, weight: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "dagger.jsonl", [classed(1, COMMON)])
    out = tmp_path / "mix.jsonl"
    assert main([f"{source}:all", "--weight", weight, "-o", str(out)]) == 2
    assert f"{weight!r}: expected SITUATION=K" in capsys.readouterr().err
    assert not out.exists()


def test_a_cap_thins_the_idle_answers_to_their_share_and_keeps_everything_else(tmp_path: Path) -> None:
    pool = ([point(n, label="wait.") for n in range(30)] + [point(100 + n, label="move away.") for n in range(10)]
            + [point(200 + n, label="place onion in c0.") for n in range(17)]
            + [point(300 + n, label="wait.", split="validation") for n in range(5)])
    source = write(tmp_path / "dagger.jsonl", pool)
    out = tmp_path / "mix.jsonl"
    assert main([f"{source}:all", "--validation", f"{source}:all", "--cap", "wait.|move away.=0.15",
                 "-o", str(out)]) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    train = [p for p in written if p["split"] == "train"]
    idle = [p for p in train if p["expert_choice"] in ("wait.", "move away.")]
    assert len(idle) == 3 and len(train) == 20  # 3 of 20 is 0.15; the 17 others all kept
    assert sum(p["split"] == "validation" for p in written) == 5  # held-out points are never thinned


@pytest.mark.parametrize("cap", ["wait.", "wait.=1.5", "=0.1", "wait.=none"])
def test_a_malformed_cap_is_refused_and_writes_nothing(tmp_path: Path, cap: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "dagger.jsonl", [point(1)])
    out = tmp_path / "mix.jsonl"
    assert main([f"{source}:all", "--cap", cap, "-o", str(out)]) == 2
    assert f"{cap!r}: expected LABEL|LABEL=SHARE" in capsys.readouterr().err
    assert not out.exists()


def test_every_mix_prints_its_most_frequent_train_answers(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    pool = ([point(n, label="wait.") for n in range(3)] + [point(10, label="place onion in c0.")]
            + [point(20 + n, label="move away.", split="validation") for n in range(4)])
    source = write(tmp_path / "dagger.jsonl", pool)
    assert main([f"{source}:all", "--validation", f"{source}:all", "-o", str(tmp_path / "mix.jsonl")]) == 0
    assert "train answers: wait. 0.75, place onion in c0. 0.25\n" in capsys.readouterr().out
