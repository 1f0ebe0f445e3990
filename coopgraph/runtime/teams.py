"""Teams from names: `mhp,coela` gives an MHP baseline and a CoELA graph agent, in agent order.

A member name is a baseline (`mhp`, `mhp-silent`, `oracle`), a shipped graph spec (`coela`,
`coela-nocomm`), a path to a spec file, or `human` (a person at a front end; only `coopgraph play` seats one).
Graph agents share one compiled graph per spec and one LLM connection, but each keeps its own memory.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from coopgraph.envs.partners import UnknownPartnerError, make_partner, partners
from coopgraph.envs.protocol import TeamMember
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec, shipped_specs


class UnknownMemberError(ValueError):
    """A team member name that is neither a baseline nor a graph spec."""


def parse_team(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise UnknownMemberError("the team is empty; name members like mhp,coela")
    return names


#: The member name of a person playing through `coopgraph play` (`coopgraph.play`).
HUMAN = "human"


def member_kind(name: str) -> str:
    """'baseline', 'graph' or 'human'; raises listing what exists."""
    if name == HUMAN:
        return "human"
    if name in partners():
        return "baseline"
    if name in shipped_specs() or Path(name).is_file():
        return "graph"
    raise UnknownMemberError(
        f"unknown team member {name!r}; baselines: {', '.join(partners())}; "
        f"graph specs: {', '.join(shipped_specs())} (or a path to a spec file)"
    )


def make_team(names: list[str], *, lm_factory: Any = None, member_lm_factories: list[Any] | None = None,
              env: str | None = None, checkpointer: Any = None,
              member_settings: list[str | None] | None = None,
              seat_human: Callable[[], TeamMember] | None = None) -> list[TeamMember]:
    """Build members. Graph members get their LLM from `member_lm_factories[i]` when given (members of one team
    may use different models), else from `lm_factory`; each factory is called at most once. With `env`, each
    graph member's spec is first checked against that world's kit (capabilities, prompt templates). Graph
    members save their steps with `checkpointer` (one per team; LangGraph's in-memory saver by default). With
    `member_settings` (each member's LLM setting name), each graph spec is also checked against what that
    profile declares it can be asked (E320-E322), so no profile bends a spec at run time. A `human` member is
    made by `seat_human()` (`coopgraph play` passes one; without it a team naming `human` is refused)."""
    from coopgraph.graphs.compiler import compile_spec
    from coopgraph.record.checkpoints import memory_saver
    from coopgraph.runtime.graph_agent import GraphAgent

    kinds = [member_kind(n) for n in names]
    factories = member_lm_factories or [lm_factory] * len(names)
    if len(factories) != len(names):
        raise UnknownMemberError(f"{len(names)} members but {len(factories)} LLM settings")
    made: dict[int, Any] = {}
    compiled: dict[str, Any] = {}
    team: list[TeamMember] = []
    settings = member_settings or [None] * len(names)
    for name, kind, factory, setting in zip(names, kinds, factories, settings, strict=True):
        if kind == "baseline":
            try:  # with `env`, a partner of another world is refused naming this world's partners
                team.append(make_partner(name, world=env))
            except UnknownPartnerError as exc:
                raise UnknownMemberError(str(exc)) from None
            continue
        if kind == "human":
            if seat_human is None:
                raise UnknownMemberError(f"{HUMAN!r} is a person at the keyboard and plays only through "
                                         "`coopgraph play`; name a baseline or graph member here instead")
            team.append(seat_human())
            continue
        if factory is None:
            raise UnknownMemberError(f"graph member {name!r} needs an LLM setting")
        try:
            loaded = load_spec(name, env=env, llm=setting, member=True)
        except SpecInvalid as exc:
            raise UnknownMemberError(str(exc)) from None
        lm = made.setdefault(id(factory), factory())
        if checkpointer is None:
            checkpointer = memory_saver()
        graph = compiled.setdefault(name, compile_spec(loaded, checkpointer=checkpointer))
        team.append(GraphAgent(loaded, lm=lm, graph=graph))
    return team


def choice_prompt(spec: str) -> str | None:
    """The prompt template a spec's `planning.choose_action` node renders (None: the spec has no such node)."""
    from coopgraph.nodes.registry import NODES

    node = next((n for n in load_spec(spec).spec.nodes.values() if n.use == "planning.choose_action"), None)
    return None if node is None else node.prompt or NODES.get(node.use).prompt


def prompt_mismatch(member: str, setting: str | None, env: str | None = None) -> str | None:
    """A warning when a distilled profile would be asked with a choice prompt it never learned (e.g. `coela` on
    `local-coop-brief`, which learned coela-brief's, or `coela-lite` in TDW-MAT on `local-coop`, which learned its
    C-WAH prompt), else None; the run goes on either way."""
    from coopgraph.envs.registry import kit_info
    from coopgraph.llm.model_files import MODEL_FILES

    files = MODEL_FILES.get(setting or "")
    trained = files.spec if files is not None else None
    if files is None or trained is None or member_kind(member) != "graph":
        return None
    expected, actual = choice_prompt(trained), choice_prompt(member)
    if actual != expected:
        return (f"{setting} learned {trained}'s choice prompt ({expected}); {member} asks with "
                f"{actual or 'no planning.choose_action node'}, which it never saw")
    world = kit_info(env).prompt_env if env is not None else None
    if files.prompt_env is not None and world is not None and world != files.prompt_env:
        return (f"{setting} learned {trained}'s {files.prompt_env} prompt; in {env} {member} asks with the "
                f"{world} templates, which it never saw")
    return None



#: The family name of the distilled planners: with `--llm local-coop`, each graph member plays with the one that
#: learned its choice prompt in the run's world (`local-coop` itself for coela-lite in C-WAH).
DISTILLED_FAMILY = "local-coop"


def distilled_for(member: str, env: str | None) -> str | None:
    """The distilled profile that learned `member`'s choice prompt in `env`'s templates (`local-coop` first when
    it did), or None when none did."""
    from coopgraph.envs.registry import UnknownEnvironmentError, kit_info
    from coopgraph.llm.model_files import MODEL_FILES

    if member_kind(member) != "graph":
        return None
    try:
        world = kit_info(env).prompt_env if env is not None else "cwah"
    except UnknownEnvironmentError:
        return None  # building the world names the known ones
    prompt = choice_prompt(member)
    fitting = [name for name, f in MODEL_FILES.items()
               if name.startswith(DISTILLED_FAMILY) and f.spec is not None and f.prompt_env == world
               and choice_prompt(f.spec) == prompt]
    return DISTILLED_FAMILY if DISTILLED_FAMILY in fitting else next(iter(fitting), None)


def team_settings(members: list[str], setting: str, env: str | None) -> list[str | None]:
    """Each member's LLM setting when the whole team is given one: None for a baseline; for the family name
    `local-coop`, the distilled planner that learned the member's prompt in this world (`local-coop` where none
    did, so the spec checks say what it cannot be asked); any other setting as given."""
    out: list[str | None] = []
    for member in members:
        if member_kind(member) != "graph":
            out.append(None)
        elif setting == DISTILLED_FAMILY:
            out.append(distilled_for(member, env) or setting)
        else:
            out.append(setting)
    return out
