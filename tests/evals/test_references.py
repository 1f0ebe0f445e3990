"""A paper's number stands only beside runs of its world and split: the loader refuses a suite that says otherwise
(with file and line), the report refuses it again for stored rows, and every shipped suite passes."""

from __future__ import annotations

import pytest

from coopgraph.evals.references import WORLD_METRICS, episode_split, metrics_of, refusal
from coopgraph.evals.suite import SUITES_DIR, Reference, SuiteInvalid, load_suite, parse_suite

CWAH = """\
name: refs
environment: {name: cwah}
episodes: test
teams:
  - label: MHP
    members: [mhp]
    references:
      - {source: CoELA t.2, world: cwah, split: test, steps: 111}
"""
TDW = """\
name: refs-tdw
environment: {name: tdw-mat}
episodes: [test/0, test/1]
teams:
  - label: RHP
    members: [rhp]
    references:
      - {source: CoELA t.1, world: tdw-mat, split: test, tr: 50}
"""


@pytest.mark.parametrize(
    ("world", "episode", "options", "split"),
    [
        ("cwah", "test/3", None, "test"),
        ("cwah-noisy", "train/12", None, "train"),
        ("cwah", "seed/7/wash_dishes", None, "seed"),
        ("cwah", "runs/mine.json#2", None, "file:mine.json"),
        ("tdw-mat", "test/23", None, "test"),
        ("tdw-mat", "train/1a_0_0/food", None, "train"),
        ("tdw-mat", "5", None, "train"),  # a bare index is the world's default split
        ("tdw-mat", "generated/7/2a_0_0", None, "generated"),
        ("tdw-mat", "3", {"dataset": "/data/tdw"}, "dataset:/data/tdw"),
        ("overcooked", "cramped_room", None, "classic"),
        ("overcooked", "soup_passing_door", None, "assist"),
        ("overcooked", "my_kitchen", None, "my_kitchen"),
        ("collab-capture", "test/4", None, "test"),
    ],
)
def test_an_episode_belongs_to_the_split_its_id_names(world: str, episode: str, options: dict[str, str] | None,
                                                      split: str) -> None:
    assert episode_split(world, episode, options) == split


def test_every_shipped_reference_names_the_world_split_and_a_metric_of_its_suites_runs() -> None:
    checked = 0
    for path in sorted(SUITES_DIR.glob("*.yaml")):
        suite = load_suite(path.stem)[0]
        world = suite.environment.name
        for team in suite.teams:
            options = {**suite.environment.options, **team.env_options}
            runs = {e: episode_split(world, e, options) for e in suite.episode_ids()}
            for ref in [*team.references, *suite.references]:
                assert ref.world == world, (path.name, team.label, ref.source)
                assert metrics_of(ref) and set(metrics_of(ref)) <= WORLD_METRICS[world], (path.name, ref.source)
                on = [runs[ref.episode]] if ref.episode else list(runs.values())
                assert set(on) == {ref.split}, (path.name, team.label, ref.source)
                checked += 1
    assert checked > 100


def test_the_papers_tdw_numbers_stand_beside_the_test_split_and_capo_ablations_runs_there() -> None:
    for name in ("tdw-mat-baselines", "tdw-mat-comparison", "capo-ablations"):
        suite = load_suite(name)[0]
        assert suite.environment.name == "tdw-mat"
        assert suite.episode_ids() == [f"test/{i}" for i in range(24)], name
    capo = load_suite("capo-ablations")[0]
    assert capo.environment.options == {"perception": "oracle"}
    assert {r.source for t in capo.teams for r in t.references} == {"CaPo t.3", "CaPo t.8"}
    cwah = load_suite("capo-ablations-cwah")[0]
    assert cwah.environment.name == "cwah" and not any(t.references for t in cwah.teams)
    assert [t.label for t in cwah.teams] == [t.label for t in capo.teams]  # the same variants
    from coopgraph.envs.tdw_mat.episode import load_episode

    scenes = {load_episode(e).key.split("_")[0] for e in capo.episode_ids()}
    assert scenes == {"2a", "5a"}  # CoELA's test split, shipped with the package
    comparison = load_suite("tdw-mat-comparison")[0]
    detector = {t.label: t for t in comparison.teams if t.env_options.get("perception") == "detector"}
    assert {"RHP (detector)", "RHP + RHP (detector)", "RHP + CoELA (detector)", "CoELA + CoELA (detector)",
            "CaPo + CaPo (detector)"} <= set(detector)
    assert all(t.references for t in detector.values())


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (CWAH.replace("world: cwah,", "world: tdw-mat,"), "is for world 'tdw-mat', but this suite runs 'cwah'"),
        (CWAH.replace("split: test,", "split: train,"), "is for split 'train', but this suite runs episodes of split"),
        (CWAH.replace("steps: 111", "tr: 50"), "sets tr, which cwah does not measure"),
        (CWAH.replace("world: cwah, ", ""), "must name the world its number comes from"),
        (CWAH.replace("split: test, ", ""), "must name the split its number comes from"),
        (CWAH.replace("steps: 111", "note: none"), "sets no metric"),
        (TDW.replace("test/0, test/1", "train/0, train/1"), "this suite runs episodes of split 'train'"),
        (TDW.replace("members: [rhp]", "members: [rhp]\n    env_options: {dataset: /data/tdw}"), "'dataset:/data/tdw'"),
    ],
)
def test_a_reference_for_other_data_is_refused_at_load_with_file_and_line(text: str, fragment: str) -> None:
    with pytest.raises(SuiteInvalid) as caught:
        parse_suite(text, "refs.yaml")
    (error,) = caught.value.errors
    assert error.file == "refs.yaml" and error.line == text.splitlines().index(
        next(line for line in text.splitlines() if "source:" in line)) + 1
    assert "teams.0.references.0" in error.message and fragment in error.message, error.message


def test_an_overcooked_reference_is_checked_against_its_own_layout() -> None:
    base = """\
name: oc
environment: {name: overcooked}
episodes: [cramped_room, no_counter_door]
teams:
  - label: G
    members: [greedy, greedy]
references:
  - {source: LLM-Co t.1, world: overcooked, split: SPLIT, label: PPO_SP, episode: EPISODE, score: 198.8}
"""
    assert parse_suite(base.replace("SPLIT", "classic").replace("EPISODE", "cramped_room"))
    with pytest.raises(SuiteInvalid, match="episode 'cramped_room' is in split 'classic'"):
        parse_suite(base.replace("SPLIT", "assist").replace("EPISODE", "cramped_room"))
    with pytest.raises(SuiteInvalid, match="which this suite does not run"):
        parse_suite(base.replace("SPLIT", "classic").replace("EPISODE", "coordination_ring"))


def test_the_report_refuses_a_reference_beside_rows_of_another_world_or_split() -> None:
    ref = Reference(source="CoELA t.1", world="tdw-mat", split="test", tr=50)
    test_rows = [{"env": "tdw-mat", "episode": "test/3", "env_options": {}}]
    assert refusal(ref, test_rows) is None
    assert "split test, the runs are 'train'" in (refusal(ref, [{**test_rows[0], "episode": "train/3"}]) or "")
    assert "is for tdw-mat, the runs are 'cwah'" in (refusal(ref, [{**test_rows[0], "env": "cwah"}]) or "")
    assert "names no world or split" in (refusal(Reference(source="old", tr=50), test_rows) or "")
