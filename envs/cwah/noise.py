"""Noisy-C-WAH: the same episode with N dummy objects that no task ever asks for (REVECA used 10 and 20).

Noise is a pure function of (episode id, N), so every run of `test/3` with noise 20 sees the same clutter.
"""

from __future__ import annotations

import random

from coopgraph.envs.cwah.catalog import DUMMY_CLASSES
from coopgraph.envs.cwah.episode import Episode, ObjectSpec


def add_noise(episode: Episode, count: int) -> Episode:
    """Return a copy of `episode` with `count` dummy items on random surfaces or inside random containers."""
    if count < 0:
        raise ValueError(f"noise must be >= 0, got {count}")
    if count == 0:
        return episode
    rng = random.Random(f"{episode.episode_id}/noise/{count}")
    furniture = sorted((obj for obj in episode.objects if obj.kind != "item"), key=lambda obj: obj.id)
    next_id = max(obj.id for obj in episode.objects) + 1
    dummies = []
    for index in range(count):
        holder = rng.choice(furniture)
        inside = holder.kind == "container"
        dummies.append(
            ObjectSpec(
                id=next_id + index,
                name=rng.choice(DUMMY_CLASSES),
                kind="item",
                dummy=True,
                inside=holder.id if inside else None,
                on=None if inside else holder.id,
            )
        )
    return episode.model_copy(
        update={
            "episode_id": f"{episode.episode_id}+noise{count}",
            "objects": episode.objects + tuple(dummies),
        }
    )
