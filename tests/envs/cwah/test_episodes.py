"""Episode sets, look-up errors, user JSON files, generation and Noisy-C-WAH."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from coopgraph.envs import make
from coopgraph.envs.cwah import (
    Episode,
    UnknownEpisodeError,
    add_noise,
    episode_sets,
    load_episode_set,
    resolve_episode,
    save_episode_file,
)
from coopgraph.envs.cwah.catalog import DUMMY_CLASSES, GOAL_CLASSES
from coopgraph.envs.cwah.tasks import TASK_TYPES


def test_shipped_sets_have_the_promised_shape() -> None:
    assert episode_sets()["test"] == 10 and episode_sets()["train"] >= 50
    test = load_episode_set("test")
    assert Counter(e.task for e in test) == dict.fromkeys(TASK_TYPES, 2)
    for episode in test + load_episode_set("train"):
        assert 3 <= episode.subgoal_count <= 5
        assert sorted(r.name for r in episode.rooms) == ["bathroom", "bedroom", "kitchen", "livingroom"]
        assert len(episode.agent_starts) >= 4
        assert not any(o.dummy for o in episode.objects)
    assert len({e.episode_id for e in test}) == 10


def test_unknown_episodes_list_what_exists() -> None:
    for bad in ("test/10", "tset/1", "train/x", "seed/abc", "seed/1/clean_house"):
        with pytest.raises(UnknownEpisodeError) as error:
            resolve_episode(bad)
        assert "test/0..9" in str(error.value) and "train/0.." in str(error.value)
    with pytest.raises(UnknownEpisodeError):
        make("cwah", episode="test/99")


def test_generated_episodes_follow_the_requested_task() -> None:
    episode = resolve_episode("seed/123/wash_dishes")
    assert episode.task == "wash_dishes"
    assert {g.object for g in episode.goal} <= {"plate", "fork"}
    assert {g.relation for g in episode.goal} == {"IN"}
    assert resolve_episode("seed/123/wash_dishes") == episode


def test_user_json_episode_loads(tmp_path: Path) -> None:
    mine = {
        "episode_id": "mine/0",
        "task": "wash_dishes",
        "rooms": [
            {"id": 1, "name": "kitchen", "x": 0, "y": 0, "width": 5, "depth": 4},
            {"id": 2, "name": "livingroom", "x": 5, "y": 0, "width": 5, "depth": 4},
        ],
        "doors": [{"rooms": [1, 2], "position": [5.0, 2.0]}],
        "objects": [
            {"id": 10, "name": "dishwasher", "kind": "container", "room": 1, "position": [1.0, 1.0]},
            {"id": 11, "name": "coffeetable", "kind": "surface", "room": 2, "position": [8.0, 2.0]},
            {"id": 40, "name": "plate", "kind": "item", "on": 11},
        ],
        "goal": [{"relation": "IN", "object": "plate", "target": 10, "count": 1}],
        "agent_starts": [{"room": 2, "position": [9.0, 3.0]}, {"room": 1, "position": [2.0, 2.0]}],
    }
    single = tmp_path / "one.json"
    single.write_text(json.dumps(mine))
    env = make("cwah", episode=str(single))
    observations, _ = env.reset()
    assert env.episode.episode_id == "mine/0"
    assert [o.id for o in observations["alice"].visible_objects] == [11, 40]
    many = tmp_path / "many.json"
    save_episode_file([Episode.model_validate(mine), resolve_episode("test/0")], many)
    assert make("cwah", episode=f"{many}#1").episode == resolve_episode("test/0")
    with pytest.raises(UnknownEpisodeError):
        resolve_episode(f"{many}#2")
    mine["objects"][2]["on"] = 999
    single.write_text(json.dumps(mine))
    with pytest.raises(ValueError, match="item 40"):
        resolve_episode(single)


@pytest.mark.parametrize("noise", [10, 20, 7])
def test_noise_adds_exactly_n_dummy_objects_outside_every_goal(noise: int) -> None:
    clean = resolve_episode("test/4")
    noisy = resolve_episode("test/4", noise=noise)
    added = [o for o in noisy.objects if o not in clean.objects]
    assert len(noisy.objects) - len(clean.objects) == noise == len(added)
    assert all(o.dummy and o.kind == "item" and o.name in DUMMY_CLASSES for o in added)
    assert not {o.name for o in added} & (set(GOAL_CLASSES) | {g.object for g in noisy.goal})
    assert noisy.goal == clean.goal and noisy.rooms == clean.rooms
    assert resolve_episode("test/4", noise=noise) == noisy  # deterministic
    env = make("cwah-noisy", noise=noise, episode="test/4")
    assert env.episode == noisy and env.episode.episode_id == f"test/4+noise{noise}"
    assert add_noise(clean, 0) == clean
