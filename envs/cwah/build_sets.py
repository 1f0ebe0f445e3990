"""Rebuilds the shipped episode files: `python -m coopgraph.envs.cwah.build_sets` (deterministic)."""

from __future__ import annotations

from pathlib import Path

from coopgraph.envs.cwah.episode import save_episode_file
from coopgraph.envs.cwah.episode_sets import DATA_DIR, SET_RECIPES, build_set, load_episode_set


def write_shipped_sets(directory: Path = DATA_DIR) -> None:
    """Generate every set in SET_RECIPES into `directory/<name>.json`."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in SET_RECIPES:
        save_episode_file(build_set(name), directory / f"{name}.json", name=name)
    load_episode_set.cache_clear()


if __name__ == "__main__":
    write_shipped_sets()
    print(f"wrote {', '.join(SET_RECIPES)} to {DATA_DIR}")
