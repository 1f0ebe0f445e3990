"""`check_member`: the conformance test of a team member against the `TeamMember` protocol, beside `check_world`.

The runtime asks a member for its name, whether it waits on a model, whether it samples, its LLM usage, and hands it
a tracer and closes it, all without probing for them; a member that lacks one fails in the middle of an episode.
`check_member` takes a registered scripted partner by name (then it checks it in every world the partner plays,
a fresh one each) or a member and a world, plays it as the first agent of the world's default episode for a few
steps while its partners wait, and asserts, with a message naming the member, the world and the problem:
- it implements `coopgraph.envs.protocol.TeamMember`; `name` is non-empty text, `decides_concurrently` and `samples`
  are booleans;
- `reset` takes the world's own agent info and `set_tracer` a tracer bound to its agent;
- `act` returns a `PrimitiveAction` whenever its agent is ready (the runner sends WAIT otherwise);
- `llm_usage()` is None or maps names to numbers, and `close()` returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from coopgraph.envs.partners import make_partner, partner_info
from coopgraph.envs.protocol import WAIT, PrimitiveAction, TeamMember, World
from coopgraph.envs.registry import default_episode, make
from coopgraph.record.trace_file import Tracer


@dataclass
class MemberReport:
    """What `check_member` saw: the member's type and flags, and the actions it chose in each world it played."""

    member: str
    member_type: str
    decides_concurrently: bool
    samples: bool
    actions: dict[str, list[str]] = field(default_factory=dict)  # world -> the texts of the actions it chose


def _check(who: str, condition: object, message: str) -> None:
    if not condition:
        raise AssertionError(f"check_member({who}): {message}")


def check_member(member: str | TeamMember, env_name: str | None = None, *, steps: int = 3) -> MemberReport:
    """Check a registered scripted partner (by name: in `env_name`, else in every world it plays) or a member
    (`env_name` required) against the `TeamMember` protocol by playing `steps` steps of each world's default
    episode as its first agent; raises AssertionError naming the member, the world and the problem."""
    if isinstance(member, str):
        worlds: Sequence[str] = [env_name] if env_name is not None else partner_info(member).worlds
        made = {world: make_partner(member, world=world) for world in worlds}
    else:
        if env_name is None:
            raise ValueError("check_member(member, env_name): name the world a member instance plays")
        made = {env_name: member}
    report: MemberReport | None = None
    for world, one in made.items():
        checked = _check_one(one, world, steps)
        if report is None:
            report = checked
        report.actions.update(checked.actions)
    assert report is not None, "a registered partner plays at least one world"
    return report


def _check_one(member: object, env_name: str, steps: int) -> MemberReport:
    who = f"{type(member).__name__} in {env_name!r}"
    if not isinstance(member, TeamMember):
        raise AssertionError(f"check_member({who}): does not implement coopgraph.envs.protocol.TeamMember (name, "
                             "decides_concurrently, samples, reset, act, set_tracer, llm_usage, close); inherit "
                             "coopgraph.envs.protocol.MemberBase for the defaults of a member that asks no model")
    _check(who, isinstance(member.name, str) and member.name, f"name must be non-empty text, got {member.name!r}")
    who = f"{member.name!r} in {env_name!r}"
    for flag in ("decides_concurrently", "samples"):
        value = member.decides_concurrently if flag == "decides_concurrently" else member.samples
        _check(who, isinstance(value, bool), f"{flag} must be True or False, got {value!r}")
    env = make(env_name, episode=default_episode(env_name), num_agents=2)
    chosen: list[str] = []
    try:
        world = env
        if not isinstance(world, World):
            raise AssertionError(f"check_member({who}): world {env_name!r} does not implement World (check_world)")
        observations, _ = env.reset(seed=0)
        agent = env.possible_agents[0]
        member.reset(agent, world.agent_info(agent), 0)
        member.set_tracer(Tracer(None).bind(agent=agent))
        for _ in range(steps):
            if not env.agents:
                break
            action = WAIT
            if observations[agent].ready:
                action = member.act(observations[agent])
                _check(who, isinstance(action, PrimitiveAction),
                       f"act() must return a PrimitiveAction, got {type(action).__name__}")
                chosen.append(action.text)
            observations, *_ = env.step({a: action if a == agent else WAIT for a in env.agents})
        usage = member.llm_usage()
        _check(who, usage is None or all(isinstance(k, str) and isinstance(v, int | float) for k, v in usage.items()),
               f"llm_usage() must be None or map names to numbers, got {usage!r}")
        member.close()
    finally:
        env.close()
    return MemberReport(member=member.name, member_type=type(member).__name__,
                        decides_concurrently=member.decides_concurrently, samples=member.samples,
                        actions={env_name: chosen})
