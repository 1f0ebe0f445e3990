"""TDW-MAT episodes: read from CoELA's dataset folder format, or from the converted splits the project ships.

A CoELA dataset folder holds `test_env.json` (the episode list: scene, layout as `LAYOUT_SETTING`, task), per
scene file `{scene}_{layout}_{setting}.json` (TDW commands: every `add_object` with its model, id and position)
with its `_metadata.json` (each object's room type, the target and container counts, the agents' starts), and
`list.json` (which models are targets and containers of each task), `name_map.json` and `room_types.json`.
Both tasks' objects are in every scene file; only the task's targets and containers are kept.
An episode is named by its index in `test_env.json` or by `SCENE_LAYOUT_SETTING/TASK` (`1a_0_0/food`); a shipped
one by its split first (`test/3`, `test/2a_0_0/food`), the train split being the default.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

#: The converted splits shipped with the project (CoELA's MIT data: `data/LICENSE-coela.txt`), each in
#: `data/<split>.json`: `train` (scenes 1a, 4a; calibration and decision data) and `test` (scenes 2a, 5a; every
#: number in CoELA's, CaPo's and REVECA's TDW-MAT tables). The first is the default.
SPLITS = ("train", "test")
TRAIN_SET = SPLITS[0]
TRAIN_FILE = f"{TRAIN_SET}.json"
Task = Literal["food", "stuff"]
#: What a dataset folder must hold besides the scene files its `test_env.json` names.
DATASET_FILES = ("test_env.json", "list.json", "name_map.json", "room_types.json")


class UnknownEpisodeError(KeyError):
    """An episode id the dataset does not have; the message lists what exists."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class DatasetError(ValueError):
    """A dataset folder that cannot be read (a file missing, a field absent); the message names the file."""


class EpisodeObject(BaseModel):
    """A target or container at its dataset position; `room_type` is the metadata's label."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    kind: Literal["target", "container"]
    position: tuple[float, float]
    room_type: str


class TDWEpisode(BaseModel):
    """One TDW-MAT episode: scene layout, task, objects, the agents' starts and the goal counts."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    scene: str  # "1a"
    layout: int
    setting: int  # 0 "enough" containers, 1 "rare"
    task: Task
    room_types: list[str]
    objects: list[EpisodeObject]
    starts: list[tuple[float, float]]

    @property
    def key(self) -> str:
        return f"{self.scene}_{self.layout}_{self.setting}/{self.task}"

    @property
    def targets(self) -> list[EpisodeObject]:
        return [o for o in self.objects if o.kind == "target"]

    @property
    def containers(self) -> list[EpisodeObject]:
        return [o for o in self.objects if o.kind == "container"]

    def goal_counts(self) -> dict[str, int]:
        """Target name -> how many, in the order first listed (the goal sentence's order)."""
        counts: dict[str, int] = {}
        for obj in self.targets:
            counts[obj.name] = counts.get(obj.name, 0) + 1
        return counts

    def goal_text(self) -> str:
        """CoELA's goal sentence: "Transport 3 apples, 2 bananas, ... to the bed."."""
        parts = [f"{n} {name}{'s' if n > 1 else ''}" for name, n in self.goal_counts().items()]
        return f"Transport {', '.join(parts)} to the bed."


def _read(folder: Path, name: str) -> Any:
    path = folder / name
    if not path.is_file():
        raise DatasetError(f"dataset folder {folder} lacks {name} (CoELA's format: test_env.json, list.json, "
                           "name_map.json, room_types.json and a scene file with its _metadata.json per episode)")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path} is not JSON: {exc}") from exc


def convert_episode(folder: Path, entry: dict[str, Any], shared: dict[str, Any]) -> TDWEpisode:
    """One `test_env.json` entry of a CoELA dataset folder as a `TDWEpisode`."""
    scene, layout_setting, task = entry["scene"], entry["layout"], entry["task"]
    layout, setting = (int(part) for part in str(layout_setting).split("_"))
    stem = f"{scene}_{layout_setting}"
    commands = _read(folder, f"{stem}.json")
    metadata = _read(folder, f"{stem}_metadata.json")
    lists, names = shared["list.json"][task], shared["name_map.json"]
    added = [c for c in commands if c.get("$type") == "add_object"]
    rooms = metadata.get("object_room_list")
    if rooms is None or len(rooms) != len(added):
        raise DatasetError(f"{folder / (stem + '_metadata.json')}: object_room_list must give a room for each of "
                           f"the {len(added)} add_object commands of {stem}.json")
    objects = []
    for command, (model, room_type) in zip(added, rooms, strict=True):
        kind: Literal["target", "container"] | None = (
            "target" if model in lists["target"] else "container" if model in lists["container"] else None)
        if kind is None or model != command["name"]:
            continue  # the other task's objects (or a mismatch, which the metadata never has)
        position = command["position"]
        objects.append(EpisodeObject(id=int(command["id"]), name=names.get(model, model), kind=kind,
                                     position=(round(position["x"], 4), round(position["z"], 4)),
                                     room_type=room_type))
    starts = [(round(metadata[k]["x"], 4), round(metadata[k]["z"], 4)) for k in ("0", "1") if k in metadata]
    types = shared["room_types.json"][scene.rstrip("abcdefghijklmnopqrstuvwxyz")][layout]
    return TDWEpisode(episode_id=f"{stem}/{task}", scene=scene, layout=layout, setting=setting, task=task,
                      room_types=list(types), objects=objects, starts=starts)


class Dataset:
    """A CoELA dataset folder, read lazily: episodes by index or by `SCENE_LAYOUT_SETTING/TASK`."""

    def __init__(self, folder: str | Path, name: str = "") -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise DatasetError(f"dataset folder {self.folder} does not exist")
        self.shared = {file: _read(self.folder, file) for file in DATASET_FILES}
        self.entries: list[dict[str, Any]] = list(self.shared["test_env.json"])
        self.name = name or self.folder.name

    def keys(self) -> list[str]:
        return [f"{e['scene']}_{e['layout']}/{e['task']}" for e in self.entries]

    def episode(self, episode_id: str | int) -> TDWEpisode:
        text = str(episode_id)
        keys = self.keys()
        index = int(text) if text.isdigit() else keys.index(text) if text in keys else None
        if index is None or not 0 <= index < len(keys):
            raise UnknownEpisodeError(f"dataset {self.folder} has no episode {text!r}; it has 0..{len(keys) - 1} "
                                      f"or {', '.join(keys)}")
        return convert_episode(self.folder, self.entries[index], self.shared)


@cache
def _split(split: str) -> list[TDWEpisode]:
    text = resources.files("coopgraph.envs.tdw_mat").joinpath("data", f"{split}.json").read_text()
    return [TDWEpisode.model_validate(e) for e in json.loads(text)]


def split_episodes(split: str) -> list[TDWEpisode]:
    """A shipped split (`train` or `test`), in its `test_env.json` order."""
    if split not in SPLITS:
        raise UnknownEpisodeError(f"unknown TDW-MAT split {split!r}; shipped: {', '.join(SPLITS)}")
    return list(_split(split))


def train_episodes() -> list[TDWEpisode]:
    """The shipped train split, in `test_env.json` order."""
    return split_episodes(TRAIN_SET)


def shipped_episode(episode_id: str) -> TDWEpisode:
    """`SPLIT/N` or `SPLIT/<key>` (`test/3`, `test/2a_0_0/food`); without a split, the train split's `N` or
    `<key>`."""
    prefix, _, rest = episode_id.partition("/")
    split, rest = (prefix, rest) if prefix in SPLITS else (TRAIN_SET, episode_id)
    episodes = _split(split)
    keys = [e.key for e in episodes]
    if rest.isdigit() and int(rest) < len(episodes):
        return episodes[int(rest)]
    if rest in keys:
        return episodes[keys.index(rest)]
    shipped = "; ".join(f"{s}/0..{s}/{len(_split(s)) - 1} or {s}/<key> with key one of "
                        f"{', '.join(e.key for e in _split(s))}" for s in SPLITS)
    raise UnknownEpisodeError(f"unknown TDW-MAT episode {episode_id!r}; shipped: {shipped} (the split may be left "
                              f"out for {TRAIN_SET}); or pass dataset=DIR for a CoELA dataset folder, or "
                              "generated/SEED for a generated episode")


def load_episode(episode: str | int, dataset: str | Path | None = None) -> TDWEpisode:
    """An episode of a shipped split (`train/N`, `test/N`), a generated one (`generated/SEED`), or of a CoELA
    dataset folder when `dataset` is given."""
    if str(episode).startswith("generated/"):
        from coopgraph.envs.tdw_mat.generate import generated_episode

        return generated_episode(str(episode))
    if dataset is not None:
        text = str(episode)
        return Dataset(dataset).episode(text.split("/", 1)[1] if text.startswith(f"{TRAIN_SET}/") else text)
    return shipped_episode(str(episode))
