"""Evaluation suites: a YAML file naming an environment, episodes, teams, seeds and repeats.

A suite is validated in one pass (pydantic) and every problem is reported with file:line:column, like
graph specs. `expand_jobs` turns a suite into the list of episode runs a store keys and a runner executes.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from coopgraph.graphs.yaml_source import SourceDoc, YamlProblem, decode_text, load_source

SUITES_DIR = Path(__file__).parent / "suites"


class Member(BaseModel):
    """One agent of a team: a baseline or graph spec name, and optionally its own LLM setting."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    llm: str | None = None


class Reference(BaseModel):
    """Numbers a paper reports for the same team, shown in a separate column and never mixed with ours.

    `world` and `split` say which data the number comes from; the loader refuses a reference whose world, split or
    metric (the field it sets) is not its suite's runs' (`evals/references.py`). They are optional here only so
    that the report can still read a store written before references named them (it then prints none of them).
    """

    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1, description="e.g. 'CoELA t.2'")
    world: str | None = Field(default=None, description="the world the number comes from: cwah, tdw-mat, ...")
    split: str | None = Field(default=None, description="its split: test, train, or an Overcooked layout set")
    steps: float | None = None  # average steps L
    ei: float | None = None  # efficiency improvement, a fraction (0.33 = 33%)
    ss: float | None = None
    td: float | None = None
    cs: float | None = None
    cc: float | None = None
    success: float | None = None
    tr: float | None = None  # transport rate (%), TDW-MAT (the total over food and stuff)
    tr_food: float | None = None  # TDW-MAT transport rate (%) on the food episodes
    tr_stuff: float | None = None  # ... and on the stuff episodes
    score: float | None = None  # Overcooked points (20 per soup), with `episode` naming the layout
    episode: str | None = Field(default=None, description="the episode (Overcooked: layout) the number is for")
    label: str = Field(default="", description="whose number it is, when not the team's (a suite-level row such "
                       "as PPO_SP)")
    note: str = ""


class Team(BaseModel):
    """A labelled team: members in agent order, plus what the papers report for it."""

    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=1)
    members: list[Member] = Field(min_length=1, max_length=4)
    description: str = ""
    references: list[Reference] = Field(default_factory=list)
    env_options: dict[str, Any] = Field(default_factory=dict, description="options over the suite environment's "
                                        "for this team only (TDW-MAT: `perception: detector`)")

    @field_validator("members", mode="before")
    @classmethod
    def _plain_names(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"name": v} if isinstance(v, str) else v for v in value]
        return value


class Environment(BaseModel):
    """Which environment to make and with which options (e.g. `noise: 20` for Noisy-C-WAH)."""

    model_config = ConfigDict(extra="forbid")

    name: str = "cwah"
    options: dict[str, Any] = Field(default_factory=dict)


class Suite(BaseModel):
    """A whole suite file after validation."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_.\-]+$")
    description: str = ""
    kind: Literal["comparison", "ablation", "user-study"] = "comparison"
    environment: Environment = Field(default_factory=Environment)
    episodes: str | list[str] = "test"
    seeds: list[Annotated[int, Field(ge=0)]] = Field(default_factory=lambda: [0], min_length=1)
    repeats: int = Field(default=1, ge=1)
    max_steps: int | None = Field(default=None, ge=1)
    llm: str = "local"
    baseline: str | None = Field(default=None, description="label of the reference team for EI / deltas")
    teams: list[Team] = Field(min_length=1)
    references: list[Reference] = Field(default_factory=list, description="numbers papers report for agents this "
                                        "suite does not run (LLM-Co's PPO and PBT rows), each with its `label`")

    @model_validator(mode="after")
    def _labels(self) -> Suite:
        labels = [t.label for t in self.teams]
        doubles = sorted({label for label in labels if labels.count(label) > 1})
        if doubles:
            raise ValueError(f"team labels must be unique; repeated: {', '.join(doubles)}")
        if self.baseline is not None and self.baseline not in labels:
            raise ValueError(f"baseline {self.baseline!r} is not a team label ({', '.join(labels)})")
        return self

    def seat_problems(self) -> list[tuple[tuple[str | int, ...], str]]:
        """(location, problem) for each team that seats a person wrongly: a user study's teams seat exactly one
        `human` (the participant), other suites none (`coopgraph eval` has no one to ask)."""
        from coopgraph.runtime.teams import HUMAN

        problems: list[tuple[tuple[str | int, ...], str]] = []
        for i, team in enumerate(self.teams):
            seats = sum(m.name == HUMAN for m in team.members)
            if self.kind == "user-study" and seats != 1:
                problems.append((("teams", i, "members"), f"teams.{i}.members: a user-study team seats exactly one "
                                 f"{HUMAN!r} member (the participant) beside its partner condition, got {seats}"))
            if self.kind != "user-study" and seats:
                problems.append((("teams", i, "members"), f"teams.{i}.members: {HUMAN!r} is a person; only "
                                 "`kind: user-study` suites seat one (played with `coopgraph play --study`)"))
        return problems

    def reference_team(self) -> str | None:
        """The team EI and deltas are measured against: `baseline`, else the first one-agent team (comparisons)
        or the first team (ablations, where it is the full model)."""
        if self.baseline:
            return self.baseline
        if self.kind == "ablation":
            return self.teams[0].label
        return next((t.label for t in self.teams if len(t.members) == 1), None)

    def episode_ids(self) -> list[str]:
        return expand_episodes(self.episodes, self.environment.name)


@dataclass(frozen=True)
class SuiteError:
    file: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}:{self.column or 1}"
        return f"{where}: {self.message}"


class SuiteInvalid(ValueError):
    """Raised with every problem of a suite file at once."""

    def __init__(self, errors: list[SuiteError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


#: Worlds whose episodes are C-WAH's episode sets (`test` → test/0..9); any other world's episodes are its own
#: names, taken as written (Overcooked: layout names).
EPISODE_SET_WORLDS = frozenset({"cwah", "cwah-noisy"})


def expand_episodes(episodes: str | list[str], env: str = "cwah") -> list[str]:
    """`test` → test/0..9; a list is taken as is (each item may itself be a set name). In a world without episode
    sets (Overcooked), the names are taken as written."""
    from coopgraph.envs.cwah.episode_sets import episode_sets

    items = [episodes] if isinstance(episodes, str) else list(episodes)
    if env not in EPISODE_SET_WORLDS:
        return items
    sets = episode_sets()
    out: list[str] = []
    for item in items:
        if item in sets:
            out.extend(f"{item}/{i}" for i in range(sets[item]))
        elif "/" in item or item.endswith(".json"):
            out.append(item)
        else:
            raise ValueError(f"unknown episode set {item!r}; sets: {', '.join(sets)} (or ids like test/3)")
    return out


def resolve_suite_path(ref: str | Path) -> Path:
    """A path to a suite file, or the name of a shipped suite (`cwah-baselines`)."""
    path = Path(ref)
    if path.is_file():
        return path
    shipped = SUITES_DIR / f"{Path(str(ref)).stem}.yaml"
    if shipped.is_file():
        return shipped
    names = ", ".join(sorted(p.stem for p in SUITES_DIR.glob("*.yaml")))
    raise SuiteInvalid([SuiteError(str(ref), None, None, f"no such suite file (shipped suites: {names})")])


def parse_suite(text: str, file: str = "<suite>", *, check_references: bool = True) -> Suite:
    """The validated suite; every problem is a `SuiteError` with file:line:column. `check_references=False` skips
    the world/split/metric check of paper references (the report re-checks them against the stored rows)."""
    try:
        doc = load_source(text)
    except YamlProblem as problem:
        mark = problem.mark
        raise SuiteInvalid([SuiteError(file, mark.line if mark else None, mark.column if mark else None,
                                       problem.message)]) from None
    if not isinstance(doc.data, dict):
        raise SuiteInvalid([SuiteError(file, 1, 1, "a suite must be a mapping of fields")])
    try:
        suite = Suite.model_validate(doc.data)
    except ValidationError as exc:
        errors = []
        for err in exc.errors():
            loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and x in ("str", "list[str]")))
            mark = doc.mark_for(loc)
            field = ".".join(str(x) for x in loc) or "suite"
            errors.append(SuiteError(file, mark.line if mark else None, mark.column if mark else None,
                                     f"{field}: {err['msg']}"))
        raise SuiteInvalid(errors) from None
    unknown = unknown_names(suite, doc, file)
    if unknown:
        raise SuiteInvalid(unknown)
    seats = suite.seat_problems()
    if seats:
        marks = [doc.mark_for(loc) for loc, _ in seats]
        raise SuiteInvalid([SuiteError(file, m.line if m else None, m.column if m else None, message)
                            for m, (_, message) in zip(marks, seats, strict=True)])
    try:
        suite.episode_ids()
    except ValueError as exc:
        mark = doc.mark_for(("episodes",))
        raise SuiteInvalid([SuiteError(file, mark.line if mark else None, mark.column if mark else None,
                                       f"episodes: {exc}")]) from None
    if check_references:
        from coopgraph.evals.references import reference_problems

        errors = []
        for loc, message in reference_problems(suite):
            mark = doc.mark_for(loc)
            errors.append(SuiteError(file, mark.line if mark else None, mark.column if mark else None,
                                     f"{'.'.join(str(x) for x in loc)}: {message}"))
        if errors:
            raise SuiteInvalid(errors)
    return suite


def unknown_names(suite: Suite, doc: SourceDoc, file: str) -> list[SuiteError]:
    """The world and LLM settings the suite names that do not exist, each with its line and what does exist: an
    evaluation refused here writes nothing, where one started would fail every job."""
    from coopgraph import envs
    from coopgraph.llm.settings import parse_setting

    errors: list[SuiteError] = []

    def at(loc: tuple[str | int, ...], message: str) -> None:
        mark = doc.mark_for(loc)
        errors.append(SuiteError(file, mark.line if mark else None, mark.column if mark else None, message))

    if suite.environment.name not in envs.registered():
        at(("environment", "name"), f"environment.name: unknown world {suite.environment.name!r}; worlds: "
           f"{', '.join(envs.registered())}")
    else:
        limit = envs.team_limit(suite.environment.name)
        for t, team in enumerate(suite.teams):
            if len(team.members) > limit:
                at(("teams", t, "members"), f"teams.{t}.members: team {team.label!r} has {len(team.members)} "
                   f"agents; world {suite.environment.name!r} seats at most {limit}")
    settings: list[tuple[tuple[str | int, ...], str]] = [(("llm",), suite.llm)]
    for t, team in enumerate(suite.teams):
        settings += [(("teams", t, "members", m, "llm"), member.llm) for m, member in enumerate(team.members)
                     if member.llm is not None]
    for loc, setting in settings:
        try:
            parse_setting(setting)
        except ValueError as exc:  # LLMSettingError names every setting that exists
            at(loc, f"{'.'.join(map(str, loc))}: {exc}")
    return errors


def load_suite(ref: str | Path) -> tuple[Suite, Path, str]:
    """The validated suite, its path and its text (the store keeps the text for the report)."""
    path = resolve_suite_path(ref)
    try:
        text = decode_text(path.read_bytes())
    except OSError as exc:
        raise SuiteInvalid([SuiteError(str(path), None, None, f"cannot read suite file: {exc.strerror}")]) from None
    except YamlProblem as problem:
        mark = problem.mark
        raise SuiteInvalid([SuiteError(str(path), mark.line if mark else None, mark.column if mark else None,
                                       problem.message)]) from None
    return parse_suite(text, str(path)), path, text


class Job(BaseModel):
    """One episode run of one team: everything a worker needs, and the key the store resumes by."""

    suite: str
    team: str
    members: list[str]
    llms: list[str | None]  # effective LLM setting per member; None for members that use none
    env: str
    env_options: dict[str, Any]
    episode: str
    seed: int
    repeat: int
    max_steps: int | None
    config_hash: str
    out_dir: str
    # Where the team's models keep their replies (`coopgraph.runtime.launch.ResponseCache`: True the user's cache,
    # False none, a path that file). Neither in the key nor in the config hash: it changes where replies come from
    # and how long they take, never what they are.
    response_cache: bool | str = True
    # Seconds of wall clock the episode may take (`run_configured`'s `wall_budget_s`; None: no budget). Outside the
    # key and the config hash as well: a stopped episode's row says so (`metrics["stopped_at_budget"]`), and the
    # same episode under another budget is the same configuration.
    wall_budget_s: float | None = None

    @property
    def key(self) -> tuple[str, str, str, int, int, str]:
        return (self.suite, self.team, self.episode, self.seed, self.repeat, self.config_hash)

    def trace_file(self) -> Path:
        name = f"{_slug(self.episode)}-s{self.seed}-r{self.repeat}-{self.config_hash[:8]}.jsonl"
        return Path(self.out_dir) / "traces" / _slug(self.suite) / _slug(self.team) / name


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+\-]+", "_", text).strip("_") or "x"


def _member_fingerprint(name: str, llm: str | None) -> dict[str, Any]:
    """What about a member changes results: its name, its LLM and (for graph specs) the hashes of its spec file
    and of every base spec it extends."""
    from coopgraph.runtime.teams import UnknownMemberError, member_kind

    try:
        kind = member_kind(name)
    except UnknownMemberError:
        return {"name": name, "kind": "unknown", "llm": llm}
    if kind == "baseline":
        return {"name": name, "kind": kind}
    from coopgraph.graphs.errors import SpecInvalid
    from coopgraph.graphs.loader import base_chain
    from coopgraph.record.manifest import file_hash

    try:
        own, *bases = [file_hash(path) for path in base_chain(name)]
    except SpecInvalid:
        own, bases = "missing", []
    fingerprint = {"name": name, "kind": kind, "llm": llm, "spec_sha256": own, **_profile_pins(llm)}
    if bases:  # only for a spec that extends another, so the hashes of stand-alone specs stay as they were
        fingerprint["bases_sha256"] = bases
    return fingerprint


def _profile_pins(llm: str | None) -> dict[str, Any]:
    """An embedded profile's pinned file hashes and the node params it fixes, so a new `local-coop` adapter
    or a change in how the profile is asked reruns its teams."""
    from coopgraph.llm.model_files import MODEL_FILES

    files = MODEL_FILES.get(llm or "")
    if files is None:
        return {}
    pins: dict[str, Any] = {"weights_sha256": [h for h in (files.sha256, files.adapter_sha256) if h]}
    if fixes := files.fixes():
        pins["profile_fixes"] = fixes
    return pins


def member_llms(suite: Suite, team: Team, override: str | None = None) -> list[str | None]:
    """The LLM each member runs with: --llm override, else the member's own, else the suite's; None for
    baselines (they use no LLM, so changing the LLM never reruns them)."""
    from coopgraph.runtime.teams import UnknownMemberError, member_kind

    out: list[str | None] = []
    for member in team.members:
        try:
            uses_llm = member_kind(member.name) == "graph"
        except UnknownMemberError:
            uses_llm = True
        out.append((override or member.llm or suite.llm) if uses_llm else None)
    return out


def config_hash(suite: Suite, team: Team, llms: list[str | None], max_steps: int | None = None) -> str:
    payload = {
        "env": suite.environment.name,
        "env_options": {**suite.environment.options, **team.env_options},
        "max_steps": max_steps,
        "members": [_member_fingerprint(m.name, llm) for m, llm in zip(team.members, llms, strict=True)],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


def expand_jobs(suite: Suite, out_dir: str | Path, *, llm: str | None = None, limit: int | None = None,
                teams: list[str] | None = None, max_steps: int | None = None,
                response_cache: bool | str | Path = True, wall_budget_s: float | None = None) -> list[Job]:
    """Every (team, episode, seed, repeat) of the suite, `limit` episodes per team at most; `max_steps`
    overrides the suite's step budget (and so the config hash: short trial runs never mix with real ones);
    `response_cache` is where the jobs' models keep their replies (`Job.response_cache`; not hashed);
    `wall_budget_s` the seconds each episode may take (`Job.wall_budget_s`; not hashed)."""
    from coopgraph.runtime.episode_loop import check_wall_budget

    wall_budget_s = check_wall_budget(wall_budget_s)
    cache = str(response_cache) if isinstance(response_cache, Path) else response_cache
    episodes = suite.episode_ids()[:limit] if limit else suite.episode_ids()
    budget = max_steps or suite.max_steps
    jobs = []
    for team in suite.teams:
        if teams and team.label not in teams:
            continue
        llms = member_llms(suite, team, llm)
        digest = config_hash(suite, team, llms, budget)
        for episode in episodes:
            for seed in suite.seeds:
                for repeat in range(suite.repeats):
                    jobs.append(Job(
                        suite=suite.name, team=team.label, members=[m.name for m in team.members], llms=llms,
                        env=suite.environment.name,
                        env_options={**suite.environment.options, **team.env_options},
                        episode=episode, seed=seed, repeat=repeat, max_steps=budget,
                        config_hash=digest, out_dir=str(out_dir), response_cache=cache,
                        wall_budget_s=wall_budget_s,
                    ))
    return jobs


def unknown_members(suite: Suite) -> dict[str, list[str]]:
    """Team label → member names that are neither baselines nor graph specs (yet)."""
    from coopgraph.runtime.teams import UnknownMemberError, member_kind

    missing: dict[str, list[str]] = {}
    for team in suite.teams:
        for member in team.members:
            try:
                member_kind(member.name)
            except UnknownMemberError:
                missing.setdefault(team.label, []).append(member.name)
    return missing
