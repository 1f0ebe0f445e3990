"""`check_kit`: the conformance test of a world's agent kit, public like PettingZoo's `parallel_api_test`.

It builds the environment and one kit per agent by name, plays a few ticks (each agent runs the kit's own
skill book on the listed affordances in turn) and asserts, with a message naming what is wrong:
- the kit's capabilities are known, equal the registered ones, and its `prompt_env` matches the registration;
- the belief has every member of the core `Belief` protocol and of each declared capability, and they work;
- `news` is declared exactly when the kit has a reporter, and the reporter composes text;
- affordances are annotated: a group (OTHER only with notes saying why), costs and distances >= 0, a text whose
  `<name> (id)` label reads back; `look_values` both ways: declared, some inspect or explore option has a
  value; not declared, no option has one (a world must not fill what it does not declare);
- the skill book's primitive actions read back through `PrimitiveAction.parse`;
- observations keep time <= horizon, never go back in time, and report `last_action_cost` >= 0;
- the belief deep-copies, and the copy updates without touching the original.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coopgraph.envs.capabilities import (
    CAPABILITIES,
    Belief,
    IntentView,
    KnownObject,
    PartnerView,
    ProgressEvent,
    protocol_members,
)
from coopgraph.envs.protocol import (
    SEND_MESSAGE,
    WAIT,
    Affordance,
    AffordanceGroup,
    AgentInfo,
    AgentKit,
    Observation,
    PrimitiveAction,
    SkillStatus,
    World,
    parse_labels,
)
from coopgraph.envs.registry import agent_kit, kit_info, make

LOOKS = (AffordanceGroup.INSPECT, AffordanceGroup.EXPLORE)


@dataclass
class KitReport:
    """What `check_kit` saw: handy for a test's own assertions and for a reader's curiosity."""

    env: str
    capabilities: frozenset[str]
    prompt_env: str
    episodes: list[str | None] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    ticks: int = 0
    affordances: dict[str, str] = field(default_factory=dict)  # kind -> group
    primitives: set[str] = field(default_factory=set)
    valued_looks: int = 0
    progress_events: int = 0


class _Fail:
    """Builds the AssertionError messages, all prefixed with the environment's name."""

    def __init__(self, env_name: str) -> None:
        self.env_name = env_name

    def check(self, condition: object, message: str) -> None:
        if not condition:
            raise AssertionError(f"check_kit({self.env_name!r}): {message}")


def _members(proto: type) -> list[str]:
    """The member names of a protocol class (the way `protocol_members` reads a capability's)."""
    names = set(getattr(proto, "__annotations__", {})) | {n for n in vars(proto) if not n.startswith("_")}
    return sorted(names)


def _check_views(fail: _Fail, capability: str, view: type, items: list[Any]) -> None:
    """Each object, partner or intent a belief hands out has the members its view protocol promises."""
    for item in items[:20]:
        for member in _members(view):
            fail.check(hasattr(item, member), f"capability {capability!r}: a {view.__name__} "
                       f"({type(item).__name__}) lacks its member {member!r}")


def _env_info(fail: _Fail, env: Any, agent_id: str) -> AgentInfo:
    fail.check(isinstance(env, World), f"{type(env).__name__} does not implement the World protocol (check_world "
               "says what is missing)")
    info: AgentInfo = env.agent_info(agent_id)
    return info


def _check_kit_shape(fail: _Fail, kit: AgentKit, env_name: str, agent_id: str) -> None:
    info = kit_info(env_name)
    for capability in sorted(info.capabilities | kit.capabilities):
        fail.check(capability in CAPABILITIES,
                   f"capability {capability!r} is not known; known: {', '.join(sorted(CAPABILITIES))}")
    fail.check(kit.capabilities == info.capabilities,
               f"the built kit's capabilities {sorted(kit.capabilities)} differ from the registered "
               f"{sorted(info.capabilities)} (pass capabilities= to AgentKit as register_kit declares them)")
    fail.check(kit.prompt_env == info.prompt_env,
               f"the kit's prompt_env {kit.prompt_env!r} differs from the registered {info.prompt_env!r}")
    belief = kit.belief
    for member in _members(Belief):
        fail.check(hasattr(belief, member), f"the belief lacks {member!r} of the core Belief protocol")
    fail.check(belief.agent_id == agent_id, f"belief.agent_id is {belief.agent_id!r}, expected {agent_id!r}")
    for capability in sorted(kit.capabilities):
        for member in protocol_members(capability):
            fail.check(hasattr(belief, member),
                       f"capability {capability!r} is declared but the belief lacks its member {member!r}")
    has_news = "news" in kit.capabilities
    fail.check(has_news == callable(kit.news),
               "the kit declares 'news' but has no news reporter (AgentKit.news)" if has_news
               else "the kit has a news reporter (AgentKit.news) but does not declare the 'news' capability")


def _check_members_work(fail: _Fail, kit: AgentKit) -> None:
    """Read every declared data member and call the simple queries, so a member that raises is named."""
    belief: Any = kit.belief
    for capability in sorted(kit.capabilities):
        for member in protocol_members(capability):
            try:
                value = getattr(belief, member)
            except Exception as exc:  # noqa: BLE001 - the checker names whatever a member raises
                raise AssertionError(f"check_kit({fail.env_name!r}): reading {member!r} of capability "
                                     f"{capability!r} raised {exc!r}") from exc
            fail.check(value is not None, f"{member!r} of capability {capability!r} is None")
    if "partners" in kit.capabilities:
        _check_views(fail, "partners", PartnerView, list(belief.partners.values()))
        _check_views(fail, "partners", IntentView, list(belief.partner_intents.values()))
    if "goals" in kit.capabilities:
        for predicate in belief.goal:
            fail.check(isinstance(belief.satisfied(predicate), int), "goals: satisfied() must return an int")
        for obj in belief.goal_objects():
            fail.check(belief.predicate_for(obj) is not None,
                       f"goals: goal_objects() lists {obj.label}, for which predicate_for() is None")
    if "rooms" in kit.capabilities:
        for room_id in belief.rooms:
            fail.check(isinstance(belief.room_name(room_id), str), "rooms: room_name() must return a str")
    if "spatial" in kit.capabilities:
        here = belief.position
        distance = belief.walk_distance(here, None, here, None)
        fail.check(distance == 0 or math.isinf(distance),
                   f"spatial: walk_distance from a point to itself is {distance}")
    if "objects" in kit.capabilities:
        _check_views(fail, "objects", KnownObject, list(belief.objects.values()))
        fail.check(belief.hands >= 1, f"objects: hands is {belief.hands}")
        for object_id in list(belief.objects)[:20]:
            fail.check(str(object_id) in belief.label_of(object_id), "objects: label_of() must name the id")


def _check_observation(fail: _Fail, obs: Any, previous: int | None) -> None:
    fail.check(isinstance(obs, Observation), f"observations must be coopgraph Observations, got {type(obs).__name__}")
    fail.check(0 <= obs.time <= obs.horizon, f"observation time {obs.time} is not within 0..horizon {obs.horizon}")
    fail.check(obs.last_action_cost >= 0, f"last_action_cost {obs.last_action_cost} is negative")
    fail.check(previous is None or obs.time >= previous, f"time went back from {previous} to {obs.time}")
    if obs.last_action:
        try:
            PrimitiveAction.parse(obs.last_action)
        except ValueError as exc:
            raise AssertionError(f"check_kit({fail.env_name!r}): the observation's last_action "
                                 f"{obs.last_action!r} does not parse: {exc}") from exc


def _check_affordance(fail: _Fail, option: Affordance, capabilities: frozenset[str], report: KitReport) -> None:
    where = f"affordance {option.text!r}"
    fail.check(option.group != AffordanceGroup.OTHER or option.notes,
               f"{where} has group OTHER and no notes: give it a group, or notes saying what it does")
    fail.check(option.cost is None or option.cost >= 0, f"{where} has a negative cost {option.cost}")
    fail.check(option.distance is None or option.distance >= 0, f"{where} has a negative distance")
    if option.target_id is not None:
        labels = parse_labels(option.text)
        fail.check(labels and labels[0] == (option.target_name, option.target_id),
                   f"{where}: its label reads back as {labels[:1]}, expected "
                   f"[({option.target_name!r}, {option.target_id})] (names must be one word: <name> (id))")
    fail.check(option.value is None or "look_values" in capabilities,
               f"{where} has a value ({option.value}) but the kit does not declare 'look_values': declare it, or "
               "leave Affordance.value None")
    if option.group in LOOKS and option.value is not None:
        report.valued_looks += 1
    if option.kind == SEND_MESSAGE:
        fail.check(option.group == AffordanceGroup.COMMUNICATE, f"{where} sends a message but is not COMMUNICATE")
    report.affordances.setdefault(option.kind, option.group.value)


def _check_primitive(fail: _Fail, action: PrimitiveAction, report: KitReport) -> None:
    try:
        back = PrimitiveAction.parse(action.text)
    except ValueError as exc:
        raise AssertionError(f"check_kit({fail.env_name!r}): primitive {action.text!r} does not parse") from exc
    fail.check((back.kind, back.target_id, back.object_id) == (action.kind, action.target_id, action.object_id)
               and (action.message or "").strip() == (back.message or "").strip(),
               f"primitive {action.text!r} reads back as {back.text!r}")
    report.primitives.add(action.kind)


class _Player:
    """One agent of the check: its kit, and the affordance it is running (taken in turn from the list)."""

    def __init__(self, kit: AgentKit) -> None:
        self.kit = kit
        self.plan: Affordance | None = None
        self.turn = 0
        self.reporter = kit.news(kit.belief) if callable(kit.news) else None

    def act(self, fail: _Fail, obs: Any, report: KitReport) -> PrimitiveAction:
        kit, belief = self.kit, self.kit.belief
        options = kit.affordances.available(belief)
        for option in options:
            _check_affordance(fail, option, kit.capabilities, report)
        with_message = kit.affordances.available(belief, message="Hello.")
        fail.check(with_message and with_message[0].kind == SEND_MESSAGE,
                   "available(belief, message=...) must list the [send_message] option first")
        if self.reporter is not None:
            self.reporter.note_put(belief, obs)
        if not getattr(obs, "ready", True):
            return WAIT
        for _ in range(2):
            if self.plan is None:
                if not options:
                    return WAIT
                self.plan = options[self.turn % len(options)]
                self.turn += 1
                if self.reporter is not None:
                    fail.check(isinstance(self.reporter.compose(belief, self.plan), str),
                               "news: compose() must return a str")
            step = kit.skillbook.next_action(self.plan, obs)
            if step.status == SkillStatus.RUNNING and step.action is not None:
                _check_primitive(fail, step.action, report)
                return step.action
            self.plan = None
        return WAIT


def _check_copy(fail: _Fail, belief: Belief, copied: Belief, obs: Any) -> None:
    state = getattr(belief, "__dict__", {})
    for name, value in getattr(copied, "__dict__", {}).items():
        if isinstance(value, (dict, list, set)) and value:
            fail.check(value is not state.get(name), f"the belief's deep copy shares its {name!r} with the original")
    before = (belief.progress_text(include_all=True), belief.brief_text())
    copied.update(obs)
    fail.check((belief.progress_text(include_all=True), belief.brief_text()) == before,
               "updating a deep copy of the belief changed the original")
    belief.update(obs)
    fail.check((copied.progress_text(include_all=True), copied.brief_text())
               == (belief.progress_text(include_all=True), belief.brief_text()),
               "a deep copy of the belief, updated with the same observation, differs from the original")


def _play(fail: _Fail, env_name: str, episode: str | None, steps: int, options: dict[str, Any],
          report: KitReport) -> None:
    env = make(env_name, **({"episode": episode} if episode is not None else {}), **options)
    observations, _ = env.reset(seed=0)
    players: dict[str, _Player] = {}
    for agent_id in env.possible_agents:
        kit = agent_kit(env_name, _env_info(fail, env, agent_id))
        _check_kit_shape(fail, kit, env_name, agent_id)
        players[agent_id] = _Player(kit)
    report.agents = list(env.possible_agents)
    clock: dict[str, int | None] = dict.fromkeys(players)
    for tick in range(steps):
        actions = {}
        for agent_id in list(env.agents):
            player, obs = players[agent_id], observations[agent_id]
            _check_observation(fail, obs, clock[agent_id])
            clock[agent_id] = obs.time
            belief = player.kit.belief
            if tick == 1:  # a copy, updated with this observation, must leave the original alone
                _check_copy(fail, belief, copy.deepcopy(belief), obs)
            else:
                belief.update(obs)
            for message in obs.messages:
                player.kit.read_message(belief, message)
            events = belief.progress_events(obs)
            fail.check(isinstance(events, list) and all(isinstance(e, ProgressEvent) for e in events),
                       "progress_events() must return a list of ProgressEvent")
            fail.check(tick > 0 or events == [], f"the first progress_events() call must set the baseline and "
                       f"report nothing, got {events}")
            report.progress_events += len(events)
            fail.check(isinstance(belief.progress_text(), str) and isinstance(belief.brief_text(), str),
                       "progress_text() and brief_text() must return str")
            if tick in (0, steps - 1):  # at the start, and once the belief has filled up
                _check_members_work(fail, player.kit)
            actions[agent_id] = player.act(fail, obs, report)
        if not env.agents:
            break
        observations, *_ = env.step(actions)
        report.ticks += 1
    env.close()


def check_kit(env_name: str, *, episodes: Sequence[str] | None = None, steps: int = 12,
              env_options: dict[str, Any] | None = None) -> KitReport:
    """Check the kit registered for `env_name` on each of `episodes` (default: the environment's own default
    episode) for `steps` ticks; raises AssertionError naming the first problem, returns a `KitReport`."""
    fail = _Fail(env_name)
    info = kit_info(env_name)
    report = KitReport(env=env_name, capabilities=info.capabilities, prompt_env=info.prompt_env)
    for episode in list(episodes) if episodes is not None else [None]:
        _play(fail, env_name, episode, steps, dict(env_options or {}), report)
        report.episodes.append(episode)
    if "look_values" in info.capabilities:
        fail.check(report.valued_looks > 0, "'look_values' is declared but no inspect or explore option had a value")
    return report
