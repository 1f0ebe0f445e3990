"""Decision points from expert teams: what CoELA's action-choice node would see where MHP picked a plan.

Issue #4 asks how good CoELA's choice among listed actions is with a small model. Whole episodes mix that
question with message drafting and plan execution, so this module isolates it: an MHP team plays C-WAH,
and every time an MHP agent picks a new high-level plan we freeze what that agent knew (a deep copy of its
belief, its previous plans and the messages it received) and replay it through CoELA's own nodes:
`memory.retrieve` renders the facts, `planning.list_actions` the options (the affordances MHP chose from)
and `planning.choose_action`'s adapter the exact prompt. MHP's pick is the expert label; the centralised
oracle, planning from the true state at that step, gives a second label where its next subgoal maps onto
a listed option. Everything is deterministic for a seed, so two generations are byte-identical.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coopgraph import envs
from coopgraph.envs.cwah import episode_sets
from coopgraph.envs.cwah.episode import AgentStart, Episode, ObjectSpec
from coopgraph.envs.cwah.experts.mhp import MHPAgent
from coopgraph.envs.cwah.experts.oracle import plan_team
from coopgraph.envs.partners import make_partner, partners
from coopgraph.envs.protocol import Affordance, AgentInfo, Observation, PrimitiveAction
from coopgraph.evals.decision_hooks import DecisionHooks, DecisionRun, RecordedEpisode
from coopgraph.evals.decision_reader import read_points
from coopgraph.evals.decision_writer import DecisionWriter
from coopgraph.graphs.compiler import node_context
from coopgraph.graphs.loader import LoadedSpec, load_spec
from coopgraph.memory.agent_memory import AgentMemory
from coopgraph.memory.episodic import OUTCOMES, EpisodicMemory
from coopgraph.nodes.candidates import CandidateParams, rank
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for
from coopgraph.nodes.registry import NODES
from coopgraph.nodes.reveca_notes import reveca_notes
from coopgraph.runtime.episode_loop import run_episode

RECORDED = {"mhp": True, "mhp-silent": False}  # recordable members and whether they talk
SPLITS: tuple[tuple[str, float], ...] = (("train", 0.7), ("validation", 0.15), ("test", 0.15))


@dataclass
class TrueState:
    """The world at one step, as one agent's oracle plans from it (see `true_state`), and who holds what."""

    episode: Episode
    holding: dict[str, list[int]]


@dataclass
class Snapshot:
    """What one MHP agent knew and chose at one decision point (copies, so later steps cannot change them)."""

    agent: str
    number: int
    env_info: AgentInfo
    observation: Observation
    belief: Any
    episodic: EpisodicMemory
    choice: Affordance
    truth: TrueState | None
    followed: Affordance  # what the agent went on to do: the choice, or a random option where it was perturbed


def true_state(env: Any, agent: str) -> TrueState:
    """Snapshot a running CWAHEnv's ground truth as `agent`'s oracle sees it.

    The oracle plans only from initial states, so the present is written as one: agents start where they
    stand, what `agent` holds lies on a surface at its feet, and what partners hold counts as delivered when
    it serves an unfinished subgoal (its holder will put it), so the plan never sends anyone to take it.
    """
    world, base = env.world, env.episode
    hands = max([o.id for o in base.objects] + [r.id for r in base.rooms]) + 1
    open_slots = [p.count - have for p, have in zip(world.goal, world.satisfied_counts(), strict=True)]
    objects = [ObjectSpec(id=hands, name="hands", kind="surface", room=world.agents[agent].room,
                          position=world.agents[agent].position)]
    for obj in world.objects.values():
        if obj.kind != "item":
            objects.append(ObjectSpec(id=obj.id, name=obj.name, kind=obj.kind, room=obj.room, position=obj.position,
                                      is_open=bool(obj.is_open), dummy=obj.dummy))
            continue
        on, inside = obj.on, obj.inside
        if obj.held_by == agent:
            on, inside = hands, None
        elif obj.held_by is not None:
            on, inside = hands, None  # a partner's load that serves no subgoal: out of the way
            for index, predicate in enumerate(world.goal):
                if predicate.object_name == obj.name and open_slots[index] > 0:
                    open_slots[index] -= 1
                    target = predicate.target_id
                    on, inside = (None, target) if predicate.relation == "IN" else (target, None)
                    break
        objects.append(ObjectSpec(id=obj.id, name=obj.name, kind="item", dummy=obj.dummy, on=on, inside=inside))
    starts = tuple(AgentStart(room=a.room, position=a.position) for a in world.agents.values())
    episode = Episode(episode_id=base.episode_id, seed=base.seed, task=base.task, rooms=base.rooms, doors=base.doors,
                      objects=tuple(objects), goal=base.goal, agent_starts=starts)
    return TrueState(episode, {agent_id: list(state.holding) for agent_id, state in world.agents.items()})


class RecordingMHP(MHPAgent):
    """MHP that keeps CoELA-style episodic memory and snapshots itself whenever it picks a new plan.

    The planner chooses among the affordances (minus recently failed ones); the message MHP may send before
    acting is its template writer's doing, not a choice, so the recorded choice is always the planner's.
    With `perturb` > 0 the agent follows a random option instead at that share of its decision points (still
    labelled with the planner's choice), as in DART: the data then also covers states the expert would never
    reach, such as having walked back into a room it already explored, which is where a learner drifts.
    """

    def __init__(self, name: str = "mhp", *, communicate: bool = True, actions_kept: int = 10,
                 messages_kept: int = 3, probe: Any = None, perturb: float = 0.0) -> None:
        super().__init__(name=name, communicate=communicate)
        self.windows = (actions_kept, messages_kept)
        self.probe = probe  # agent id -> TrueState of this step, or None: no oracle label
        self.perturb = perturb

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        self.env_info = env_info
        self.episodic = EpisodicMemory(*self.windows)
        self.snapshots: list[Snapshot] = []
        self.observation: Observation | None = None
        self.rng = random.Random(f"perturb:{seed}:{agent_id}")

    def act(self, observation: Observation) -> PrimitiveAction:
        self.observation = observation
        for message in observation.messages:
            if message.sender != self.agent_id:
                self.episodic.add_message(message.sender, message.text, message.step)
        return super().act(observation)

    def _stale(self, plan: Affordance) -> bool:
        stale = super()._stale(plan)
        if stale:
            self.episodic.add_action(plan.text, self.belief.step, "interrupted")
        return stale

    def _trace(self, kind: str, **fields: Any) -> None:
        if kind == "plan_end":
            status = fields.get("status")
            self.episodic.add_action(fields["plan"], self.belief.step, status if status in OUTCOMES else "failed")
        super()._trace(kind, **fields)

    def _perturbed_plan(self) -> tuple[Affordance | None, Affordance | None]:
        """(a random option to follow, the planner's choice as the label); no message goes with a detour."""
        options = self._options()
        choice = self.planner.choose(self.belief, options)
        self.plan_version = self.belief.version
        if choice is None:
            return None, None
        followed = self.rng.choice(options)
        self._trace("plan", plan=followed.text, perturbed=True)
        return followed, choice

    def _next_plan(self) -> Affordance | None:
        belief, episodic = copy.deepcopy(self.belief), copy.deepcopy(self.episodic)
        self.after_message = None
        if self.perturb and self.rng.random() < self.perturb:
            picked, choice = self._perturbed_plan()
            followed = picked
        else:
            picked = super()._next_plan()
            choice = self.after_message if picked is not None and picked.kind == "send_message" else picked
            followed = choice
        # followed is None only where choice is: its guard is for the type checker
        if (
            choice is not None
            and followed is not None
            and choice.kind != "send_message"
            and self.observation is not None
        ):
            truth = self.probe(self.agent_id) if self.probe is not None else None
            self.snapshots.append(Snapshot(self.agent_id, len(self.snapshots), self.env_info, self.observation,
                                           belief, episodic, choice, truth, followed))
        return picked


def oracle_label(truth: TrueState, agents: tuple[str, ...], agent: str, options: list[Affordance], *,
                 config: Any, restarts: int) -> tuple[int | None, str | None, str]:
    """(option index, the oracle's next subgoal, how it maps) for `agent`'s next step in the team plan.

    The oracle's subgoal is its first planned step that is not grabbing what the agent already holds. It
    maps `exact` onto the same listed action; else, for an object the agent does not know, onto checking
    the container that hides it (`check`) or exploring its room (`explore`); else the index is None.
    """
    plan = list(plan_team(truth.episode, agents, config, restarts=restarts).steps.get(agent, []))
    held = set(truth.holding.get(agent, []))
    while plan and plan[0].kind == "gograb" and plan[0].target_id in held:
        plan.pop(0)
    if not plan:
        return None, None, "none"
    head = plan[0]
    listed = {(o.kind, o.target_id): i for i, o in enumerate(options)}
    if (head.kind, head.target_id) in listed:
        return listed[(head.kind, head.target_id)], head.text, "exact"
    room = head.room_id
    if head.kind == "gograb":
        obj = truth.episode.object(head.target_id)  # type: ignore[arg-type]
        if obj.inside is not None and ("gocheck", obj.inside) in listed:
            return listed[("gocheck", obj.inside)], head.text, "check"
        room = truth.episode.object(obj.inside if obj.inside is not None else obj.on).room  # type: ignore[arg-type]
    if ("goexplore", room) in listed:
        return listed[("goexplore", room)], head.text, "explore"
    return None, head.text, "unmapped"


def split_of(episode_id: str, seed: int, splits: tuple[tuple[str, float], ...] = SPLITS) -> str:
    """The split an episode belongs to, from a hash of seed and id: stable whatever else is generated."""
    digest = hashlib.sha256(f"{seed}:{episode_id}".encode()).digest()
    point, edge = int.from_bytes(digest[:8], "big") / 2**64, 0.0
    for name, share in splits:
        edge += share
        if point < edge:
            return name
    return splits[-1][0]


@dataclass
class Rendered:
    """What the action-choice node sees at one decision point, and the prompt it sends."""

    facts: dict[str, Any]
    options: list[Affordance]
    messages: list[dict[str, str]]
    prompt_env: str
    ranking: list[tuple[int, str]]


#: The spec whose nodes render decision points unless told otherwise: the planner-only CoELA variant that the
#: shipped `local-coop` planner was distilled on (the published `coela` thinks freely at temperature 0.7, which is
#: not what a distilled chooser answers).
DECISION_SPEC = "coela-lite"


class DecisionRenderer:
    """Replays a snapshot through a spec's retrieve, list-actions (and shortlist) and choose-action nodes."""

    def __init__(self, spec: str | Path | LoadedSpec = DECISION_SPEC) -> None:
        self.loaded = spec if isinstance(spec, LoadedSpec) else load_spec(spec)
        uses = {node.use: node_id for node_id, node in self.loaded.spec.nodes.items()}
        missing = [u for u in ("memory.retrieve", "planning.list_actions", "planning.choose_action") if u not in uses]
        if missing:
            raise ValueError(f"spec {self.loaded.spec.name!r} has no node using {', '.join(missing)}")
        self.ids = uses

    def choose_context(self, resources: AgentResources | None = None) -> Any:
        return node_context(self.loaded, self.ids["planning.choose_action"], resources)

    def render(self, snap: Snapshot, agents: list[str]) -> Rendered:
        """Facts, options and chat messages exactly as the spec's nodes would produce them for this snapshot."""
        kit = envs.agent_kit(snap.env_info.env, snap.env_info)
        memory = AgentMemory(semantic=copy.deepcopy(snap.belief), episodic=snap.episodic, procedural=kit.skillbook)
        resources = AgentResources(agent_id=snap.agent, env=kit.prompt_env, memory=memory,
                                   affordances=kit.affordances, kit=kit, agents=list(agents))
        facts = self._run("memory.retrieve", {"observation": snap.observation}, resources)["facts"]
        if "memory.layout" in self.ids:  # a spec that describes the world's fixed map (LLM-Co's layout text)
            facts = self._run("memory.layout", {"facts": facts}, resources)["facts"]
        listed = self._run("planning.list_actions", {"message": None, "facts": facts}, resources)
        facts = listed.get("facts", facts)  # a spec may have list_actions add notes (distances) to the facts
        if "planning.shortlist" in self.ids:  # and a shortlist between listing and choosing
            listed = self._run("planning.shortlist", {**listed, "facts": facts}, resources)
            facts = listed["facts"]
        ranked = kit.capabilities >= PRERANK_NEEDS
        ranking = prerank(memory, listed["options"], snap.observation.time) if ranked else []
        return Rendered(facts, listed["options"], self.messages(facts, listed["actions"], resources), kit.prompt_env,
                        ranking)

    def decide(self, snap: Snapshot, agents: list[str], lm: Any) -> str | None:
        """What the spec's choice node, asking `lm`, would pick at this snapshot (its fallback for an unusable
        answer, as in play): the learner's move in a DAgger roll-in."""
        seen = self.render(snap, agents)
        resources = AgentResources(agent_id=snap.agent, env=seen.prompt_env, lm=lm, agents=list(agents))
        state = {"facts": seen.facts, "actions": [o.text for o in seen.options], "options": seen.options}
        return self._run("planning.choose_action", state, resources)["choice"]

    def _run(self, use: str, state: dict[str, Any], resources: AgentResources) -> dict[str, Any]:
        return NODES.get(use).fn(state, node_context(self.loaded, self.ids[use], resources))

    def messages(self, facts: dict[str, Any], actions: list[str], resources: AgentResources | None = None,
                 params: dict[str, Any] | None = None) -> list[dict[str, str]]:
        """The chat messages `planning.choose_action` sends for these facts and options (params override the
        spec's, e.g. `{"answer_format": "text"}`)."""
        ctx = self.choose_context(resources or AgentResources(env="cwah"))
        if params:
            ctx.params = ctx.params.model_copy(update=params)
        predict = ctx.program.predict
        return adapter_for(ctx).format(predict.signature, predict.demos, {"context": dict(facts), "options": actions})


#: What REVECA's pre-ranking reads from a belief (a world without them, e.g. Overcooked, gets no pre-ranking).
PRERANK_NEEDS = frozenset({"objects", "rooms", "spatial", "partners"})


def prerank(memory: AgentMemory, options: list[Affordance], step: int) -> list[tuple[int, str]]:
    """REVECA's pre-ranking of these options (relevance, then who is closer, then my distance) as (option index,
    note) pairs, best first; options REVECA would drop are absent. Stored so the K-best hygiene can be measured
    on the same decision points without replaying episodes."""
    index = {id(option): i for i, option in enumerate(options)}
    ranked = rank(memory.semantic, reveca_notes(memory), options, step, CandidateParams())
    return [(index[id(option)], candidate.note) for option, candidate in ranked]


def _member(name: str, probe: Any, windows: tuple[int, int], perturb: float = 0.0) -> Any:
    if name in RECORDED:
        return RecordingMHP(name, communicate=RECORDED[name], actions_kept=windows[0], messages_kept=windows[1],
                            probe=probe, perturb=perturb)
    if name in partners():
        return make_partner(name)  # plays, but has no belief to record
    raise ValueError(f"team member {name!r} cannot be recorded; use {', '.join(RECORDED)} (or other baselines "
                     f"as unrecorded partners: {', '.join(partners())})")


def episode_ids(episode_set: str, limit: int | None = None) -> list[str]:
    size = episode_sets().get(episode_set, 0)
    if not size:
        raise ValueError(f"unknown episode set {episode_set!r}; sets: {', '.join(episode_sets())}")
    return [f"{episode_set}/{i}" for i in range(min(size, limit or size))]


def point_record(snap: Snapshot, seen: Rendered, renderer: DecisionRenderer, *, env: str, episode: str, split: str,
                 team: list[str], oracle: tuple[int | None, str | None, str] = (None, None, "none"),
                 rollin: str = "expert") -> dict[str, Any]:
    """One decision point as a JSON-ready record (every world writes the same fields), labelled with the expert's
    choice and, where there is one, the oracle's (option index, subgoal, how it maps); `rollin` says whose
    choices brought the agent here (`expert`, or `learner` in a DAgger round)."""
    texts = [o.text for o in seen.options]
    return {
        "id": f"{env}/{episode}/{snap.agent}/{snap.number:03d}",
        "env": env, "episode": episode, "step": snap.observation.time, "agent": snap.agent,
        "split": split, "team": list(team), "facts": seen.facts, "options": texts,
        "expert_index": texts.index(snap.choice.text), "expert_choice": snap.choice.text,
        "oracle_index": oracle[0], "oracle_choice": None if oracle[0] is None else texts[oracle[0]],
        "oracle_subgoal": oracle[1], "oracle_match": oracle[2],
        "spec": renderer.loaded.spec.name, "prompt_env": seen.prompt_env, "messages": seen.messages,
        "prerank": [i for i, _ in seen.ranking], "prerank_notes": [note for _, note in seen.ranking],
        "followed": snap.followed.text, "rollin": rollin,
    }


def episode_decisions(env_name: str, episode: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                      oracle_restarts: int = 300, env_options: dict[str, Any] | None = None,
                      perturb: float = 0.0) -> list[dict[str, Any]]:
    """Play one episode with the team and return its decision points as JSON-ready records; `perturb` is the
    share of decision points where a recorded agent follows a random option instead (see `RecordingMHP`)."""
    return record_episode(env_name, episode, team, renderer=renderer, seed=seed, oracle_restarts=oracle_restarts,
                          env_options=env_options, perturb=perturb).records


def record_episode(env_name: str, episode: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                   oracle_restarts: int = 300, env_options: dict[str, Any] | None = None,
                   perturb: float = 0.0) -> RecordedEpisode:
    """`episode_decisions`, with how far the episode got (for the command's progress line)."""
    env = envs.make(env_name, episode=episode, num_agents=len(team), **(env_options or {}))

    def probe(agent: str) -> TrueState:  # plan_team's cache serves repeated decisions within a step
        return true_state(env, agent)

    params = renderer.loaded.spec.params
    windows = (int(params.get("actions_kept", 10)), int(params.get("messages_kept", 3)))
    members = [_member(name, probe, windows, perturb) for name in team]
    steps = run_episode(env, members, seed=seed).steps
    agents = tuple(env.possible_agents)
    snapshots = sorted((s for m in members if isinstance(m, RecordingMHP) for s in m.snapshots),
                       key=lambda s: (s.observation.time, agents.index(s.agent), s.number))
    split = split_of(env.episode.episode_id, seed)
    records = []
    for snap in snapshots:
        seen = renderer.render(snap, list(agents))
        texts = [o.text for o in seen.options]
        if snap.choice.text not in texts:
            continue  # the spec's shortlist left MHP's choice off: never label a wrong index (recall in docs)
        oracle: tuple[int | None, str | None, str] = (None, None, "none")
        if snap.truth is not None:
            oracle = oracle_label(snap.truth, agents, snap.agent, seen.options, config=env.config,
                                  restarts=oracle_restarts)
        records.append(point_record(snap, seen, renderer, env=env_name, episode=env.episode.episode_id,
                                    split=split, team=team, oracle=oracle))
    return RecordedEpisode(name=env.episode.episode_id, records=records, decisions=len(snapshots), time=steps,
                           time_unit=env.time_unit)


def generate(env_name: str = "cwah", episode_set: str = "train", team: list[str] | None = None, *,
             limit_episodes: int | None = None, seed: int = 0, spec: str = DECISION_SPEC, oracle_restarts: int = 300,
             env_options: dict[str, Any] | None = None, perturb: float = 0.0) -> Iterator[dict[str, Any]]:
    """Decision points of every episode of a set, episode by episode, in a fixed order."""
    renderer = DecisionRenderer(spec)
    for episode in episode_ids(episode_set, limit_episodes):
        yield from episode_decisions(env_name, episode, team or ["mhp", "mhp"], renderer=renderer, seed=seed,
                                     oracle_restarts=oracle_restarts, env_options=env_options, perturb=perturb)


def _record(env: str, episode: str, team: list[str], *, renderer: DecisionRenderer,
            run: DecisionRun) -> RecordedEpisode:
    return record_episode(env, episode, team, renderer=renderer, seed=run.seed,
                             oracle_restarts=run.oracle_restarts, perturb=run.perturb)


#: C-WAH's decision data (`coopgraph data decisions`, both `cwah` and `cwah-noisy`): MHP pairs on an episode set.
HOOKS = DecisionHooks(team="mhp,mhp", spec=DECISION_SPEC, episodes=episode_ids, record=_record)


def write_jsonl(records: Iterator[dict[str, Any]] | list[dict[str, Any]], path: str | Path) -> dict[str, Any]:
    """Write one decision per line and return a summary (counts per split and oracle mapping)."""
    with DecisionWriter(path) as writer:
        writer.write(records)
    return writer.summary()


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """The file's decision points; a line that is not JSON is a DecisionFileError naming it."""
    return read_points(Path(path))
