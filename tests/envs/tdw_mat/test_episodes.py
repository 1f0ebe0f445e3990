"""Episodes: the shipped train split, CoELA's dataset folder format, and what bad input says."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coopgraph import envs
from coopgraph.envs.tdw_mat.episode import DatasetError, UnknownEpisodeError, _train, load_episode
from coopgraph.envs.tdw_mat.floorplan import FloorplanError, load_floorplan

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "tdw_mat" / "dataset_train"


def test_the_shipped_train_split_has_24_episodes_of_ten_targets() -> None:
    episodes = _train()
    assert len(episodes) == 24 and {e.task for e in episodes} == {"food", "stuff"}
    for episode in episodes:
        assert len(episode.targets) == 10 and 1 <= len(episode.containers) <= 5
        assert not {o.room_type for o in episode.targets} & {"Bedroom", "Porch"}
        plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
        assert plan.rooms[plan.bed_room].type == "Bedroom"
        assert len(episode.starts) == 2


def test_the_goal_reads_as_coela_writes_it() -> None:
    assert load_episode("train/0").goal_text() == "Transport 4 loaf_breads, 2 oranges, 3 apples, 1 burger to the bed."


def test_episodes_by_index_or_by_key() -> None:
    assert load_episode("train/13").key == load_episode("train/1a_0_1/stuff").key == "1a_0_1/stuff"


def test_the_door_graph_joins_every_room() -> None:
    for episode in _train()[:12]:
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
