"""The seeded generator: the same seed gives the same episode, and every episode keeps CoELA's placement rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coopgraph.envs.tdw_mat.floorplan import load_floorplan
from coopgraph.envs.tdw_mat.generate import GenerateError, generate_episode, main
from tests.envs.tdw_mat.conftest import make_env


def test_the_same_seed_gives_the_same_episode_and_another_seed_another() -> None:
    assert generate_episode(7) == generate_episode(7)
    assert generate_episode(7).objects != generate_episode(8).objects
    assert make_env("generated/7").episode == generate_episode(7)


@pytest.mark.parametrize("seed", range(12))
def test_generated_episodes_follow_the_dataset_rules(seed: int) -> None:
    episode = generate_episode(seed)
    plan = load_floorplan(episode.scene, episode.layout, episode.room_types)
    assert len(episode.targets) == 10 and len(episode.containers) == (5 if episode.setting == 0 else 2)
    assert len({o.id for o in episode.objects}) == len(episode.objects)
    for obj in episode.objects:
        assert obj.room_type not in ("Bedroom", "Porch")
        assert plan.rooms[plan.room_of(obj.position)].type == obj.room_type, obj
    container_rooms = {plan.room_of(o.position) for o in episode.containers}
    assert len(container_rooms) <= (2 if episode.setting == 0 else 1)
    banned = "Office" if episode.task == "food" else "Kitchen"
    assert all(o.room_type != banned for o in episode.containers)
    assert len(episode.starts) == 2


def test_a_pinned_key_chooses_the_scene_and_a_bad_one_says_the_form() -> None:
    episode = generate_episode(3, "2a_1_1/stuff")
    assert (episode.scene, episode.layout, episode.setting, episode.task) == ("2a", 1, 1, "stuff")
    with pytest.raises(GenerateError, match="SCENE_LAYOUT_SETTING/TASK"):
        generate_episode(3, "2a/food")
    with pytest.raises(GenerateError, match="scenes are 1, 2, 4, 5"):
        generate_episode(3, "3a_0_0/food")


def test_the_command_writes_count_episodes(tmp_path: Path) -> None:
    out = tmp_path / "eps.json"
    assert main(["--seed", "5", "--count", "3", "--out", str(out)]) == 0
    episodes = json.loads(out.read_text())
    assert [e["episode_id"] for e in episodes] == ["generated/5", "generated/6", "generated/7"]
    assert main(["--key", "nonsense"]) == 2
