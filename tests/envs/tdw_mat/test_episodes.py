"""Episodes: the shipped train and test splits, CoELA's dataset folder format, and what bad input says."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coopgraph import envs
from coopgraph.envs.tdw_mat.episode import (
    DatasetError,
    UnknownEpisodeError,
    load_episode,
    split_episodes,
    train_episodes,
)
from coopgraph.envs.tdw_mat.floorplan import FloorplanError, load_floorplan

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "tdw_mat" / "dataset_train"
SHARED_TEST = SHARED.parent / "dataset_test"


def test_the_shipped_train_split_has_24_episodes_of_ten_targets() -> None:
    episodes = train_episodes()
    assert len(episodes) == 24 and {e.task for e in episodes} == {"food", "stuff"}
    for episode in episodes:
        assert len(episode.targets) == 10 and 1 <= len(episode.containers) <= 5
        assert not {o.room_type for o in episode.targets} & {"Bedroom", "Porch"}
        plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
        assert plan.rooms[plan.bed_room].type == "Bedroom"
        assert len(episode.starts) == 2


def test_the_shipped_test_split_has_24_episodes_of_scenes_2a_and_5a() -> None:
    episodes = split_episodes("test")
    assert len(episodes) == 24 and {e.scene for e in episodes} == {"2a", "5a"}
    assert [e.task for e in episodes] == ["food"] * 12 + ["stuff"] * 12  # CoELA's test_env.json order
    for episode in episodes:
        assert len(episode.targets) == 10 and len(episode.containers) == (5 if episode.setting == 0 else 2)
        assert not {o.room_type for o in episode.targets} & {"Bedroom", "Porch"}
        plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
        assert plan.rooms[plan.bed_room].type == "Bedroom"
        assert len(episode.starts) == 2


def test_test_episodes_by_index_or_by_key() -> None:
    assert load_episode("test/0").key == "5a_0_0/food"
    assert load_episode("test/6").key == load_episode("test/2a_0_0/food").key == "2a_0_0/food"
    assert envs.make("tdw-mat", episode="test/23").episode.key == "2a_2_1/stuff"
    assert load_episode("0").key == load_episode("train/0").key  # the train split stays the default


def test_an_unknown_episode_names_both_shipped_splits() -> None:
    listing = r"train/0\.\.train/23 .*1a_0_0/food.*test/0\.\.test/23 .*2a_0_0/food"
    with pytest.raises(UnknownEpisodeError, match=listing):
        load_episode("test/99")
    with pytest.raises(UnknownEpisodeError, match=r"'test/1a_0_0/food'.*shipped: train/"):
        load_episode("test/1a_0_0/food")  # a train key under the test split


@pytest.mark.skipif(not SHARED_TEST.is_dir(), reason="CoELA's test split is not in ../shared/data")
def test_the_shipped_test_split_is_coelas_folder_converted() -> None:
    for index in (0, 6, 23):
        assert envs.make("tdw-mat", dataset=SHARED_TEST, episode=index).episode == load_episode(f"test/{index}")


def test_the_goal_reads_as_coela_writes_it() -> None:
    assert load_episode("train/0").goal_text() == "Transport 4 loaf_breads, 2 oranges, 3 apples, 1 burger to the bed."


def test_episodes_by_index_or_by_key() -> None:
    assert load_episode("train/13").key == load_episode("train/1a_0_1/stuff").key == "1a_0_1/stuff"


def test_the_door_graph_joins_every_room() -> None:
    for episode in train_episodes()[:12]:
        plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
        reached, todo = set(), [next(iter(plan.rooms))]
        while todo:
            room = todo.pop()
            reached.add(room)
            todo += [r for r in plan.neighbours(room) if r not in reached]
        assert reached == set(plan.rooms)


def test_an_unknown_episode_lists_what_exists() -> None:
    with pytest.raises(UnknownEpisodeError, match=r"train/0\.\.train/23.*1a_0_0/food"):
        envs.make("tdw-mat", episode="train/99")


def test_a_scene_without_floorplan_data_is_refused() -> None:
    with pytest.raises(FloorplanError, match="scene '3a' has no floorplan data.*scenes 1, 2, 4, 5"):
        load_floorplan("3a", 0, ["Office"] * 8)


def test_a_dataset_folder_missing_a_file_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="lacks test_env.json"):
        envs.make("tdw-mat", dataset=tmp_path, episode=0)


@pytest.mark.skipif(not SHARED.is_dir(), reason="CoELA's train split is not in ../shared/data")
def test_a_coela_dataset_folder_reads_as_the_shipped_split(tmp_path: Path) -> None:
    env = envs.make("tdw-mat", dataset=SHARED, episode=5)
    assert env.episode == load_episode("train/5")
    with pytest.raises(UnknownEpisodeError, match="has 0..23"):
        envs.make("tdw-mat", dataset=SHARED, episode=24)
    partial = tmp_path / "partial"
    shutil.copytree(SHARED, partial)
    (partial / "1a_0_0_metadata.json").unlink()
    with pytest.raises(DatasetError, match="lacks 1a_0_0_metadata.json"):
        envs.make("tdw-mat", dataset=partial, episode=0)
