"""The shipped toyhouse episodes (`episodes.json`), read once and looked up by name (`toyhouse/0`)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.protocol import GoalPredicate
from coopgraph.testing.toyhouse.grid import Grid, GridRoom

EPISODES_FILE = Path(__file__).with_name("episodes.json")
Cell = tuple[int, int]


class UnknownEpisodeError(ValueError):
    """An episode name that is not shipped; the message lists the ones that are."""


class ThingSpec(BaseModel):
    """One object where an episode starts it: on a cell (floor or furniture), on a surface, or inside a container."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int
    name: str
    kind: Literal["item", "container", "surface"] = "item"
    cell: Cell | None = None
    on: int | None = None
    inside: int | None = None
    open: bool | None = None


class GoalSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    relation: Literal["ON", "IN"]
    object_name: str = Field(alias="object")
    target: int
    count: int = Field(ge=1)


class EpisodeSpec(BaseModel):
    """A whole episode: the horizon in ticks, where agents start, the objects and the goal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    about: str = ""
    horizon: int = Field(ge=1)
    starts: list[Cell]
    objects: list[ThingSpec]
    goal: list[GoalSpec]

    def thing(self, thing_id: int) -> ThingSpec:
        return next(t for t in self.objects if t.id == thing_id)

    def goal_predicates(self) -> list[GoalPredicate]:
        return [GoalPredicate(relation=g.relation, object_name=g.object_name, target_id=g.target,
                              target_name=self.thing(g.target).name, count=g.count) for g in self.goal]


@lru_cache(maxsize=1)
def _data() -> dict:  # type: ignore[type-arg]
    return json.loads(EPISODES_FILE.read_text())


@lru_cache(maxsize=1)
def grid() -> Grid:
    """The house every shipped episode uses: three rooms in a row."""
    data = _data()
    width, depth = data["room_size"]
    rooms = [GridRoom(id=r["id"], name=r["name"], x0=r["x0"], width=width, depth=depth) for r in data["rooms"]]
    return Grid(rooms, door_row=data["door_row"])


def episode_names() -> list[str]:
    return sorted(_data()["episodes"])


def load_episode(name: str) -> EpisodeSpec:
    """The episode named `name` (`toyhouse/0`); unknown names fail listing the shipped ones."""
    episodes = _data()["episodes"]
    if name not in episodes:
        raise UnknownEpisodeError(f"unknown toyhouse episode {name!r}; shipped: {', '.join(episode_names())}")
    return EpisodeSpec.model_validate({"episode_id": name, **episodes[name]})
