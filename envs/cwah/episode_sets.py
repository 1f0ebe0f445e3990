"""The shipped episode sets (`test`: 10 episodes, 2 per task type; `train`: 50) and episode look-up.

An episode is named `"<set>/<index>"` (`"test/0"`), `"seed/<n>"` or `"seed/<n>/<task>"` (generated on
the fly), a path to a JSON file (`"mine.json"` or `"mine.json#2"` for the third episode in it), or given
as an Episode. Run `python -m coopgraph.envs.cwah.build_sets` to rebuild the shipped files.
"""

from __future__ import annotations

import functools
from pathlib import Path

from coopgraph.envs.cwah.episode import Episode, load_episode_file
from coopgraph.envs.cwah.generator import generate_episode
from coopgraph.envs.cwah.noise import add_noise
from coopgraph.envs.cwah.tasks import TASK_TYPES

DATA_DIR = Path(__file__).parent / "data"
TASK_ORDER = (
    "prepare_afternoon_tea",
    "wash_dishes",
    "prepare_a_meal",
    "put_groceries",
    "set_up_dinner_table",
)
SET_RECIPES: dict[str, tuple[int, int, int]] = {
    "test": (10, 1000, 2),
    "train": (50, 2000, 10),
}  # size, seed, per task


class UnknownEpisodeError(ValueError):
    """Raised for an episode name that does not exist; the message lists what does."""


def _set_seed_and_task(name: str, index: int) -> tuple[int, str]:
    _, first_seed, per_task = SET_RECIPES[name]
    return first_seed + index, TASK_ORDER[index // per_task]


def build_set(name: str) -> list[Episode]:
    """Generate a shipped set from its recipe (the JSON files are these, frozen)."""
    size = SET_RECIPES[name][0]
    episodes = []
    for index in range(size):
        seed, task = _set_seed_and_task(name, index)
        episodes.append(generate_episode(seed, task=task, episode_id=f"{name}/{index}"))
    return episodes


@functools.cache
def load_episode_set(name: str) -> tuple[Episode, ...]:
    """The episodes of a shipped set, read from the package's JSON data."""
    path = DATA_DIR / f"{name}.json"
    if name not in SET_RECIPES or not path.exists():
        raise UnknownEpisodeError(f"unknown episode set {name!r}; available: {describe_sets()}")
    return tuple(load_episode_file(path))


def episode_sets() -> dict[str, int]:
    """Shipped set names and their sizes."""
    return {name: recipe[0] for name, recipe in SET_RECIPES.items()}


def describe_sets() -> str:
    sets = ", ".join(f"{name}/0..{size - 1}" for name, size in episode_sets().items())
    return f"{sets}, seed/<n>[/<task>] (tasks: {', '.join(TASK_TYPES)}), or a path to an episode JSON file"


def _from_file(spec: str) -> Episode:
    path_text, _, index_text = spec.partition("#")
    episodes = load_episode_file(path_text)
    index = int(index_text) if index_text else 0
    if not 0 <= index < len(episodes):
        raise UnknownEpisodeError(
            f"{path_text} holds {len(episodes)} episode(s); index {index} does not exist"
        )
    return episodes[index]


def resolve_episode(spec: str | Path | Episode, noise: int = 0) -> Episode:
    """Turn an episode name, file path or Episode into an Episode, with `noise` dummy objects added."""
    if isinstance(spec, Episode):
        return add_noise(spec, noise)
    text = str(spec)
    if isinstance(spec, Path) or text.split("#")[0].endswith(".json"):
        return add_noise(_from_file(text), noise)
    head, _, rest = text.partition("/")
    if head == "seed":
        seed_text, _, task = rest.partition("/")
        if not seed_text.lstrip("-").isdigit() or (task and task not in TASK_TYPES):
            raise UnknownEpisodeError(f"bad generated episode {text!r}; available: {describe_sets()}")
        return add_noise(generate_episode(int(seed_text), task=task or None), noise)
    if head not in SET_RECIPES or not rest.isdigit():
        raise UnknownEpisodeError(f"unknown episode {text!r}; available: {describe_sets()}")
    episodes = load_episode_set(head)
    index = int(rest)
    if index >= len(episodes):
        raise UnknownEpisodeError(f"episode {text!r} does not exist; available: {describe_sets()}")
    return add_noise(episodes[index], noise)
