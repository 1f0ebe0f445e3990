"""Reasoning questions from TDW-MAT: snapshots of two RHP agents carrying targets to the bed, answers from the world.

Each time one RHP agent decides a new sub-goal we freeze its belief and ask:
- EC: in which room I saw an object, how many targets are at the bed, or whether the container I hold has room
  (read from the frozen belief, which the state text shows);
- TOM: my partner's current sub-goal (a target, a container, or the bed: the partner RHP's own, recorded as it runs);
- JP: which listed action to take, by RHP's own sub-goal rules (`sub_goal`) with the nearest object of that kind
  instead of RHP's random pick: put a held target into the held container when the world offers it; else for the
  bed, transport; for a kind with a free object known, grab the nearest (walking distance on the floor plan); for
  one with none known, explore this room unless it is explored all, else go to the nearest room not explored all.
The game description is the opening of CoELA's TDW-MAT prompt, the goal, and the partner's rules in a sentence.
"""

from __future__ import annotations

import bisect
import random

from coopgraph import envs
from coopgraph.envs.protocol import Affordance, AgentInfo, Observation, PrimitiveAction
from coopgraph.envs.tdw_mat.affordances import EXPLORE, GOTO, GRAB, PUT, TRANSPORT, TDWAffordances
from coopgraph.envs.tdw_mat.belief import TDWBelief
from coopgraph.envs.tdw_mat.experts.rhp import BED, CONTAINER, TARGET, RHPAgent
from coopgraph.evals.reasoning.generate_rows import (
    DIRECTIVES,
    Choice,
    count_choice,
    frozen,
    question_row,
    sample_choice,
    split_of,
)
from coopgraph.evals.reasoning.questions import SPLIT_COLUMN
from coopgraph.prompts.render import render_messages
from coopgraph.runtime.episode_loop import run_episode

GAME = "TDW-MAT"
#: RHP's frame thresholds, counted back from the horizon: bring what is held to the bed after `max - 700`, look
#: for containers only before `max - 1400`.
BED_AFTER, CONTAINERS_BEFORE = 700, 1400
SUB_GOALS = {TARGET: "Get a target object (go to one it knows of, or look for one).",
             CONTAINER: "Get a container (go to one it knows of, or look for one).",
             BED: "Carry what it holds to the bed."}
ROOM_FOR_MORE, FULL, NO_CONTAINER = ("Yes, it has room for another object.", "No, it is full.",
                                     "I am not holding a container.")
TRAIN_EPISODES = 24
#: Objects this much farther than the nearest one of their kind are not offered as wrong answers either.
TIE_METRES = 1.0


class QuizRHP(RHPAgent):
    """RHP keeping a copy of its belief at each sub-goal decision, and its sub-goal after every action."""

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        self.env_info = env_info
        self.choices: list[tuple[int, TDWBelief]] = []
        self.plans: list[tuple[int, int]] = []  # (frame, sub-goal) after each action

    def _choose(self, frames: int) -> None:
        b = self.belief  # the copy shares what never changes: the floor plan, rules, rooms and goal
        self.choices.append((frames, frozen(b, b.plan, b.rules, b.rooms, b.goal)))
        super()._choose(frames)

    def act(self, observation: Observation) -> PrimitiveAction:
        action = super().act(observation)
        self.plans.append((observation.time, self.sub_goal))
        return action

    def sub_goal_at(self, frame: int) -> int | None:
        """The sub-goal it held after its last action at or before `frame` (None before its first decision)."""
        index = bisect.bisect_right([t for t, _ in self.plans], frame) - 1
        goal = self.plans[index][1] if index >= 0 else None
        return goal if goal in SUB_GOALS else None


def sub_goal(belief: TDWBelief) -> int:
    """RHP's `_decide` read from a belief: the bed when holding something late, when everything still needed is
    accounted for, when two hands are full or a held container is full; else targets into a held container, or a
    container while there are frames enough, else a target."""
    held = [belief.objects[i] for i in belief.hand_items]
    inside = {i for c in belief.contents.values() for i in c}
    accounted = len(belief.transported | {o.id for o in held if o.kind == "item"} | inside)
    if held and (belief.time > belief.horizon - BED_AFTER or accounted >= sum(p.count for p in belief.goal)):
        return BED
    container = next((o for o in held if o.kind == "container"), None)
    if container is not None:
        return BED if len(belief.contents.get(container.id, [])) >= belief.rules.container_capacity else TARGET
    if len(held) == 2:
        return BED
    return CONTAINER if belief.time < belief.horizon - CONTAINERS_BEFORE else TARGET


def best_plan(belief: TDWBelief, options: list[Affordance]) -> tuple[Affordance, set[str]] | None:
    """The plan the rules pick and the texts of options as good as it (never offered as wrong answers); None when
    the rules' plan is not listed (the bed not seen yet)."""
    by_kind = {o.kind: o for o in options}
    if PUT in by_kind:
        return by_kind[PUT], set()
    goal = sub_goal(belief)
    if goal == BED:
        return (by_kind[TRANSPORT], set()) if TRANSPORT in by_kind else None
    wanted = "item" if goal == TARGET else "container"
    grabs = [o for o in options if o.kind == GRAB and belief.objects[o.target_id or 0].kind == wanted]
    if grabs:
        nearest = min(grabs, key=lambda o: (o.distance or 0.0, o.target_id or 0))
        near = {o.text for o in grabs if (o.distance or 0.0) - (nearest.distance or 0.0) < TIE_METRES}
        return nearest, near - {nearest.text}
    if EXPLORE in by_kind:
        return by_kind[EXPLORE], set()
    rooms = [o for o in options if o.kind == GOTO and belief.explored.get(o.target_id or 0) != "all"]
    if not rooms:
        return None
    nearest = min(rooms, key=lambda o: (o.distance or 0.0, o.target_id or 0))
    return nearest, {o.text for o in rooms if (o.distance or 0.0) - (nearest.distance or 0.0) < TIE_METRES} - {
        nearest.text}


def game_description(belief: TDWBelief, env_info: AgentInfo) -> str:
    partner = next(iter(belief.partners.values())).name
    variables = {"agent_name": belief.name, "partner_names": [partner], "max_steps": belief.horizon, "goal": "",
                 "progress": "", "dialogue": "", "previous_actions": "", "step": 0, "instructions": "", "options": []}
    system = render_messages("planning/choose_action", variables, "tdw-mat")[0]["content"]
    rules = (f"{partner} follows fixed rules and never talks: with a free hand it gets a container first while more "
             f"than {CONTAINERS_BEFORE} frames remain, then target objects, putting each into a held container; it "
             f"carries everything to the bed when both hands are full, its container is full, fewer than "
             f"{BED_AFTER} frames remain, or every target still needed is accounted for.")
    return f"{system}\nGoal: {env_info['goal_text']}\n{rules}"


def rooms_choice(belief: TDWBelief, answer: int, rng: random.Random) -> Choice:
    return sample_choice([belief.rooms[r].label for r in sorted(belief.rooms)], belief.rooms[answer].label, rng)


def where_question(belief: TDWBelief, rng: random.Random) -> tuple[str, Choice] | None:
    seen = [o for o in belief.objects.values() if o.kind in ("item", "container") and o.room_id in belief.rooms
            and o.held_by is None and o.inside is None and o.id not in belief.transported]
    if not seen:
        return None
    obj = rng.choice(sorted(seen, key=lambda o: o.id))
    return f"In which room did I see {obj.label}?", rooms_choice(belief, obj.room_id or 0, rng)


def transported_question(belief: TDWBelief, rng: random.Random) -> tuple[str, Choice]:
    return ("How many target objects, as far as I know, are at the bed already?",
            count_choice(len(belief.transported), rng))


def container_question(belief: TDWBelief) -> tuple[str, Choice]:
    options = [ROOM_FOR_MORE, FULL, NO_CONTAINER]
    held = [i for i in belief.hand_items if belief.objects[i].kind == "container"]
    if not held:
        return "Can I put another object into the container I am holding?", Choice(options, [2])
    full = len(belief.contents.get(held[0], [])) >= belief.rules.container_capacity
    return "Can I put another object into the container I am holding?", Choice(options, [int(full)])


def ec_question(belief: TDWBelief, rng: random.Random) -> tuple[str, Choice]:
    """Mostly where an object is or how many targets are at the bed; the container question when I hold one half
    the time, when I hold only targets now and then (so that "not holding a container" stays a fair answer)."""
    kinds = {belief.objects[i].kind for i in belief.hand_items}
    if rng.random() < (0.5 if "container" in kinds else 0.2 if kinds else 0.0):
        return container_question(belief)
    return (where_question(belief, rng) if rng.random() < 0.5 else None) or transported_question(belief, rng)


def jp_choice(options: list[Affordance], best: Affordance, equal: set[str], rng: random.Random) -> Choice | None:
    texts = [o.text for o in options if o.text not in equal]
    if len(set(texts)) < 3:
        return None
    return sample_choice(texts, best.text, rng)


def episode_rows(episode: str, *, seed: int, per_episode: int) -> list[dict[str, str]]:
    """Up to `per_episode` rows (EC, TOM and JP each) from one episode played by two RHP agents."""
    env = envs.make("tdw-mat", episode=episode, num_agents=2)
    team = [QuizRHP(), QuizRHP()]
    run_episode(env, team, seed=seed)
    rng = random.Random(f"{episode}:{seed}")
    layout = f"{env.episode.scene}_{env.episode.layout}"
    rows: list[dict[str, str]] = []
    for me, partner in ((team[0], team[1]), (team[1], team[0])):
        name = next(iter(me.belief.partners.values())).name
        for frame, belief in me.choices:
            options = TDWAffordances().available(belief)
            best = best_plan(belief, options)
            partner_goal = partner.sub_goal_at(frame)
            jp = jp_choice(options, *best, rng) if best is not None else None
            if jp is None or partner_goal is None:
                continue
            ec = ec_question(belief, rng)
            tom = sample_choice(list(SUB_GOALS.values()), SUB_GOALS[partner_goal], rng)
            state = belief.progress_text()
            rows.append({**question_row(
                game=GAME, layout=env.episode.key, state=state, description=game_description(belief, me.env_info),
                ec=(f"{state}\n\n{ec[0]}", ec[1]), tom=(f"{state}\n\nWhat is {name}'s current sub-goal?", tom),
                jp=(f"{state}\n\nWhat should I do next?", jp), concept=f"frame {frame}, {belief.name}",
                directives=DIRECTIVES), SPLIT_COLUMN: split_of(GAME, layout)})
    rng.shuffle(rows)
    return rows[:per_episode]


def world_rows(seed: int, n: int, episodes: int = 8) -> list[dict[str, str]]:
    """About `n` rows spread over `episodes` episodes evenly spaced in the shipped train split (24: two scenes,
    three layouts, two settings, two tasks), so both tasks and scenes take part."""
    per_episode = max(1, -(-n // episodes))
    picked = range(0, TRAIN_EPISODES, max(1, TRAIN_EPISODES // episodes))[:episodes]
    rows = [row for i in picked for row in episode_rows(f"train/{i}", seed=seed, per_episode=per_episode)]
    return rows[:n]
