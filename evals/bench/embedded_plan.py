"""Which rows the embedded-wirings table has: each published wiring in each world its spec loads in, on the
profile a user gets by default, plus the distilled planner of the `local-coop` family wherever one learned a
variant of that wiring in that world.

A world is one of the papers' worlds with a shipped suite (its episodes, options and horizon) and an expert team
that chooses among the same listed actions a graph agent does, so its choices count the decisions an episode
needs (`embedded_probe.expert_decisions`). Whether a wiring plays a world is the spec checks' answer
(`load_spec(spec, env=world, llm=profile, member=True)`), not a list kept here.
"""

from __future__ import annotations

from dataclasses import dataclass

from coopgraph.evals.suite import Environment, Member, Suite, Team, load_suite

#: The published wirings, in the order the papers came out.
WIRINGS = ("coela", "capo", "reveca", "llmco")
#: `--llm`'s default: what a user without a server or an API key gets.
DEFAULT_PROFILE = "local"
#: The family of distilled planners (`coopgraph.llm.model_files`): extra rows where one fits.
DISTILLED_FAMILY = "local-coop"
#: Where the bench's runs (probes and episodes) keep their models' replies: nowhere, so every decision it times
#: and every episode it plays is the model computing (the reasons are in `embedded_wirings`' docstring).
RESPONSE_CACHE = False


@dataclass(frozen=True)
class WorldPlan:
    """A world of the table: the shipped suite it takes episodes, options and horizon from, the expert that counts
    the decisions an episode needs, and the measure its table cell reports."""

    name: str
    suite: str
    expert: str
    measure: str
    measure_label: str
    pct: bool = False
    digits: int = 2


WORLDS: dict[str, WorldPlan] = {
    plan.name: plan for plan in (
        WorldPlan("cwah", "cwah-comparison", "mhp", "success", "success", pct=True),
        # RHP picks sub-goals of its own, not listed actions; the transport planner keeps its rules on CoELA's list.
        WorldPlan("tdw-mat", "tdw-mat-comparison", "planner", "transport_rate", "transport rate", pct=True),
        WorldPlan("overcooked", "overcooked-llmco", "greedy", "score", "score", digits=0),
        WorldPlan("collab-capture", "collab-capture-llmco", "collab-planner", "success", "captured", pct=True),
        WorldPlan("collab-escape", "collab-escape-llmco", "collab-planner", "success", "escaped", pct=True),
    )
}


@dataclass(frozen=True)
class Row:
    """One row: `wiring` as published, played by a pair of `member` (the wiring itself, or the variant a
    distilled `profile` learned) in `world`."""

    wiring: str
    world: str
    profile: str
    member: str

    @property
    def distilled(self) -> bool:
        return self.profile != DEFAULT_PROFILE

    @property
    def label(self) -> str:
        """The row's team label in the result store (one suite per world)."""
        return f"{self.wiring} · {self.profile}" + (f" ({self.member})" if self.member != self.wiring else "")

    @property
    def profile_text(self) -> str:
        if not self.distilled:
            return f"{self.profile} (default)"
        return f"{self.profile} (distilled; plays {self.member})"


def plays(member: str, world: str, profile: str) -> bool:
    """Whether the spec checks let `member` play `world` on `profile` (its capabilities, templates and what the
    profile can be asked)."""
    from coopgraph.graphs.errors import SpecInvalid
    from coopgraph.graphs.loader import load_spec

    try:
        load_spec(member, env=world, llm=profile, member=True)
    except SpecInvalid:
        return False
    return True


def extends(member: str, wiring: str) -> bool:
    """Whether `member` is `wiring` or a variant built on it (through `extends:`, however deep)."""
    from coopgraph.graphs.loader import base_chain

    return member == wiring or any(path.stem == wiring for path in base_chain(member)[1:])


def distilled_rows(wiring: str, world: str) -> list[Row]:
    """A row per distilled planner that learned a variant of `wiring` in `world` (its model file's spec and world)."""
    from coopgraph.llm.model_files import MODEL_FILES

    rows = []
    for profile, files in MODEL_FILES.items():
        if not profile.startswith(DISTILLED_FAMILY) or files.spec is None or files.world != world:
            continue
        if extends(files.spec, wiring) and plays(files.spec, world, profile):
            rows.append(Row(wiring, world, profile, files.spec))
    return rows


def plan_rows(wirings: list[str] | None = None, worlds: list[str] | None = None, *,
              distilled: bool = True, default: bool = True) -> list[Row]:
    """Every row, wiring by wiring: the default profile in each world the wiring plays, then its distilled rows
    (either kind can be left out, so the fast distilled rows can run before the slow default ones)."""
    rows = []
    for wiring in wirings or WIRINGS:
        for world in worlds or WORLDS:
            if default and plays(wiring, world, DEFAULT_PROFILE):
                rows.append(Row(wiring, world, DEFAULT_PROFILE, wiring))
            if distilled:
                rows += distilled_rows(wiring, world)
    return rows


def world_suite(world: str, rows: list[Row], *, max_steps: int | None = None) -> Suite:
    """The suite the rows of one world run as: the shipped suite's environment, episodes, seeds and horizon, one
    team per row (a pair of its member on its profile)."""
    shipped, _, _ = load_suite(WORLDS[world].suite)
    teams = [Team(label=row.label, members=[Member(name=row.member, llm=row.profile)] * 2) for row in rows]
    return Suite(name=f"embedded-wirings-{world}", environment=Environment.model_validate(
        shipped.environment.model_dump()), episodes=shipped.episodes, seeds=shipped.seeds[:1],
        max_steps=max_steps or shipped.max_steps, llm=DEFAULT_PROFILE, teams=teams)
