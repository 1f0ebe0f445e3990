"""Whether a paper's number may stand beside a run: the same world, the same split, a metric that world measures.

A reference in a suite names the world (`cwah`, `tdw-mat`, `overcooked`, ...) and the split its number comes from;
its metric is the field it sets (`steps`, `tr`, `score`, ...). The suite loader refuses a reference whose world,
split or metric is not its runs' (`reference_problems`), and the report checks again against the stored rows
(`refusal`), so a store written by an older or edited suite cannot put a paper's number beside other data.

An episode's split (`episode_split`): in C-WAH, Collab and TDW-MAT the part of the id before the first `/`
(`test/3` → `test`, `train/1a_0_0/food` → `train`, `generated/7` → `generated`, `seed/4` → `seed`); a bare TDW-MAT
index or key is the train split (the world's default); an episode file is `file:NAME`, and a TDW-MAT episode read
from a dataset folder (`options: {dataset: DIR}`) is `dataset:DIR`. In Overcooked the split is the layout set:
`classic` for the five layouts of LLM-Co's table 1, `assist` for the two gated ones of its tables 3-4, and any other
layout its own name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coopgraph.evals.suite import Reference, Suite

#: The reference fields that are metrics, per world: what that world's episodes measure and its report prints.
WORLD_METRICS: dict[str, frozenset[str]] = {
    "cwah": frozenset({"steps", "ei", "ss", "td", "cs", "cc", "success"}),
    "cwah-noisy": frozenset({"steps", "ei", "ss", "td", "cs", "cc", "success"}),
    "tdw-mat": frozenset({"tr", "tr_food", "tr_stuff", "ei"}),
    "overcooked": frozenset({"score"}),
    "collab-capture": frozenset(),  # LLM-Co reports no agentic numbers for the Collab games
    "collab-escape": frozenset(),
}
#: Every metric field a reference may set (the union of the above).
METRIC_FIELDS: tuple[str, ...] = ("steps", "ei", "ss", "td", "cs", "cc", "success", "tr", "tr_food", "tr_stuff",
                                  "score")
#: LLM-Co's layout sets: table 1's five classic layouts, tables 3-4's two gated (Overcooked-Assist) ones.
OVERCOOKED_SETS: dict[str, frozenset[str]] = {
    "classic": frozenset({"cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination",
                          "counter_circuit_o_1order"}),
    "assist": frozenset({"no_counter_door", "soup_passing_door"}),
}
#: TDW-MAT's episode id prefixes; anything else names a train-split episode (the world's default).
TDW_PREFIXES = frozenset({"train", "test", "generated"})


def episode_split(world: str, episode: str, options: Mapping[str, Any] | None = None) -> str:
    """The split (or layout set) an episode id of `world` belongs to; see the module docstring."""
    if world == "overcooked":
        return next((name for name, layouts in OVERCOOKED_SETS.items() if episode in layouts), episode)
    dataset = (options or {}).get("dataset")
    if world == "tdw-mat" and dataset is not None and not episode.startswith("generated/"):
        return f"dataset:{dataset}"
    name = episode.partition("#")[0]
    if name.endswith(".json"):
        return f"file:{PurePath(name).name}"
    head = name.partition("/")[0]
    if world == "tdw-mat" and head not in TDW_PREFIXES:
        return "train"
    return head


def metrics_of(ref: Reference) -> list[str]:
    """The metric fields a reference sets."""
    return [name for name in METRIC_FIELDS if getattr(ref, name) is not None]


def reference_problems(suite: Suite) -> list[tuple[tuple[str | int, ...], str]]:
    """(YAML path, message) for every reference that names another world, split or metric than the suite's runs."""
    world = suite.environment.name
    episodes = suite.episode_ids()

    def splits(options: Mapping[str, Any]) -> dict[str, str]:
        return {e: episode_split(world, e, options) for e in episodes}

    problems: list[tuple[tuple[str | int, ...], str]] = []
    placed: list[tuple[tuple[str | int, ...], Reference, dict[str, str]]] = [
        (("references", j), ref, splits(suite.environment.options)) for j, ref in enumerate(suite.references)]
    for i, team in enumerate(suite.teams):
        team_splits = splits({**suite.environment.options, **team.env_options})
        placed += [(("teams", i, "references", j), ref, team_splits) for j, ref in enumerate(team.references)]
    for path, ref, run_splits in placed:
        problems += [((*path, field), message) for field, message in _problems(ref, world, run_splits)]
    return problems


def _problems(ref: Reference, world: str, splits: Mapping[str, str]) -> Iterable[tuple[str, str]]:
    what = f"reference {ref.source!r}"
    if ref.world is None or ref.split is None:
        missing = " and ".join(n for n, v in (("world", ref.world), ("split", ref.split)) if v is None)
        yield ("world" if ref.world is None else "split",
               f"{what} must name the {missing} its number comes from (this suite runs world {world!r}, split "
               f"{_listed(set(splits.values()))})")
        return
    if ref.world != world:
        yield "world", f"{what} is for world {ref.world!r}, but this suite runs {world!r}"
        return
    measured = WORLD_METRICS.get(world)
    metrics = metrics_of(ref)
    if not metrics:
        yield "source", f"{what} sets no metric ({', '.join(sorted(measured or METRIC_FIELDS))})"
    elif measured is not None and (foreign := [m for m in metrics if m not in measured]):
        allowed = ", ".join(sorted(measured)) or "none: its paper reports no numbers for it"
        yield foreign[0], f"{what} sets {', '.join(foreign)}, which {world} does not measure (it measures {allowed})"
    if ref.episode is not None:
        if ref.episode not in splits:
            yield "episode", f"{what} is for episode {ref.episode!r}, which this suite does not run"
        elif splits[ref.episode] != ref.split:
            yield "split", (f"{what} is for split {ref.split!r}, but episode {ref.episode!r} is in split "
                            f"{splits[ref.episode]!r}")
    elif other := sorted({s for s in splits.values() if s != ref.split}):
        yield "split", (f"{what} is for split {ref.split!r}, but this suite runs episodes of split "
                        f"{_listed(set(other))}")


def refusal(ref: Reference, rows: list[dict[str, Any]]) -> str | None:
    """Why `ref` may not stand beside these stored runs (another world or split), or None when it may."""
    if ref.world is None or ref.split is None:
        return f"{ref.source} names no world or split"
    worlds = {str(r.get("env")) for r in rows}
    if worlds and worlds != {ref.world}:
        return f"{ref.source} is for {ref.world}, the runs are {_listed(worlds)}"
    runs = [r for r in rows if ref.episode is None or r.get("episode") == ref.episode]
    splits = {episode_split(str(r.get("env")), str(r.get("episode")), r.get("env_options")) for r in runs}
    if splits and splits != {ref.split}:
        return f"{ref.source} is for split {ref.split}, the runs are {_listed(splits)}"
    return None


def _listed(values: set[str]) -> str:
    return ", ".join(repr(v) for v in sorted(values)) or "(none)"
