"""Reasoning questions from C-WAH: snapshots of two MHP agents tidying a house, with answers from the world.

Each time one MHP agent picks a new subgoal we freeze its belief (what it has seen and been told) and ask:
- EC: in which room I last saw a goal object, how many goal objects still have to be put in place, or where the
  goal's target furniture is (all read from the frozen belief, which the state text shows);
- TOM: what my partner is doing now, or which room it is heading to (the partner MHP's own plan at that step,
  recorded as it runs; options from the list it chose that plan from);
- JP: which action to take (MHP's own choice, which leaves out what the partner holds or announced).
The game description is the opening of CoELA's C-WAH prompt (`planning/choose_action`) and the goal.
"""

from __future__ import annotations

import random

from coopgraph import envs
from coopgraph.envs.cwah.belief import CWAHBelief
from coopgraph.envs.cwah.experts.mhp import MHPAgent
from coopgraph.envs.protocol import Affordance, AgentInfo, Observation, PrimitiveAction
from coopgraph.evals.reasoning.generate_rows import (
    DIRECTIVES,
    Choice,
    count_choice,
    frozen,
    question_row,
    sample_choice,
)
from coopgraph.prompts.render import render_messages
from coopgraph.runtime.episode_loop import run_episode

GAME = "C-WAH"
NOT_SEEN = "I have not seen it yet."


class QuizMHP(MHPAgent):
    """MHP keeping a copy of its belief and its options at each new plan, and its plan at every step."""

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        self.env_info = env_info
        self.choices: list[tuple[int, CWAHBelief, list[Affordance], Affordance]] = []
        self.plans: dict[int, Affordance | None] = {}

    def _next_plan(self) -> Affordance | None:
        b = self.belief  # the copy shares what never changes: the floor plan, rooms, settings and goal
        belief, options = frozen(b, b.floor, b.rooms, b.config, b.goal), self._options()
        picked = super()._next_plan()
        choice = self.after_message if picked is not None and picked.kind == "send_message" else picked
        if choice is not None:
            self.choices.append((belief.step, belief, options, choice))
        return picked

    def act(self, observation: Observation) -> PrimitiveAction:
        action = super().act(observation)
        plan = self.after_message if self.plan is not None and self.plan.kind == "send_message" else self.plan
        self.plans[observation.time] = plan
        return action


def game_description(belief: CWAHBelief, env_info: AgentInfo) -> str:
    names = [p.name for p in belief.partners.values()]
    variables = {"agent_name": belief.agent_name, "partner_names": names, "goal": "", "progress": "",
                 "dialogue": "", "previous_actions": "", "step": 0, "max_steps": 0, "instructions": "", "options": []}
    system = render_messages("planning/choose_action", variables, "cwah")[0]["content"]
    return f"{system}\nGoal: {env_info['goal_text']}"


def state_text(belief: CWAHBelief) -> str:
    """The progress summary the CoELA prompt carries, the step, and what partners last said they would do."""
    said = [f"{belief.partners[a].name} said at step {i.step} that they go to {i.verb} {belief.label_of(i.target_id)}."
            for a, i in belief.partner_intents.items() if i.target_id is not None and a in belief.partners]
    return " ".join([f"It is step {belief.step}.", belief.progress_text(), *said])


def rooms_choice(belief: CWAHBelief, answer: int | None, rng: random.Random, extra: list[str] | None = None) -> Choice:
    """Every room of the house (C-WAH houses have four) shuffled (agents start in the kitchen more often than
    not), then any extra options."""
    rooms = [belief.rooms[r].label for r in sorted(belief.rooms)]
    rng.shuffle(rooms)
    options = rooms + (extra or [])
    index = options.index(belief.rooms[answer].label) if answer is not None else len(options) - 1
    return Choice(options, [index])


def where_question(belief: CWAHBelief, rng: random.Random) -> tuple[str, Choice] | None:
    seen = [o for o in belief.objects.values() if o.kind == "item" and o.name in belief.goal_classes
            and o.room_id is not None and o.held_by is None]
    if not seen:
        return None
    obj = rng.choice(sorted(seen, key=lambda o: o.id))
    return f"In which room did I last see {obj.label}?", rooms_choice(belief, obj.room_id, rng)


def remaining_question(belief: CWAHBelief, rng: random.Random) -> tuple[str, Choice]:
    left = sum(belief.remaining(p) for p in belief.goal)
    return "How many goal objects, as far as I know, still have to be put in place?", count_choice(left, rng)


def target_question(belief: CWAHBelief, rng: random.Random) -> tuple[str, Choice]:
    predicate = rng.choice(belief.goal)
    target = belief.objects.get(predicate.target_id)
    room = target.room_id if target is not None else None
    label = target.label if target is not None else f"<{predicate.target_name}> ({predicate.target_id})"
    where = "on" if predicate.relation == "ON" else "into"
    return (f"In which room is the {label} that the {predicate.object_name} goes {where}?",
            rooms_choice(belief, room, rng, [NOT_SEEN]))


def ec_question(belief: CWAHBelief, rng: random.Random) -> tuple[str, Choice]:
    pick = rng.randrange(3)
    if pick == 0:
        return where_question(belief, rng) or remaining_question(belief, rng)
    return remaining_question(belief, rng) if pick == 1 else target_question(belief, rng)


def tom_question(me: QuizMHP, partner: QuizMHP, belief: CWAHBelief, time: int,
                 rng: random.Random) -> tuple[str, Choice] | None:
    """The partner's plan at this step: as one of the actions it chose it from, or as the room it leads to."""
    intent = partner.plans.get(time)
    if intent is None:
        return None
    name = belief.partners[partner.agent_id].name
    if intent.room_id is not None and rng.random() < 0.5:
        return f"Which room is {name} heading to now?", rooms_choice(belief, intent.room_id, rng)
    origin = next((c for c in reversed(partner.choices) if c[0] <= time and c[3].text == intent.text), None)
    texts = [o.text for o in origin[2]] if origin is not None else []
    if len(set(texts)) < 3:
        return None
    return f"What is {name} doing now?", sample_choice(texts, intent.text, rng)


def episode_rows(episode: str, *, seed: int, per_episode: int) -> list[dict[str, str]]:
    """Up to `per_episode` rows (EC, TOM and JP each) from one house tidied by two MHP agents."""
    env = envs.make("cwah", episode=episode, num_agents=2)
    team = [QuizMHP(), QuizMHP()]
    run_episode(env, team, seed=seed)
    rng = random.Random(f"{episode}:{seed}")
    rows: list[dict[str, str]] = []
    for me, partner in ((team[0], team[1]), (team[1], team[0])):
        for time, belief, options, choice in me.choices:
            texts = [o.text for o in options]
            tom = tom_question(me, partner, belief, time, rng)
            ec = ec_question(belief, rng)
            if tom is None or len(set(texts)) < 3:
                continue
            state = state_text(belief)
            rows.append(question_row(
                game=GAME, layout=episode, state=state, description=game_description(belief, me.env_info),
                ec=(f"{state}\n\n{ec[0]}", ec[1]), tom=(f"{state}\n\n{tom[0]}", tom[1]),
                jp=(f"{state}\n\nWhat should I do next?", sample_choice(texts, choice.text, rng)),
                concept=f"step {time}, {belief.agent_name}", directives=DIRECTIVES))
    rng.shuffle(rows)
    return rows[:per_episode]


def world_rows(seed: int, n: int, episodes: int = 12) -> list[dict[str, str]]:
    """About `n` rows spread over the first `episodes` houses of C-WAH's train set."""
    per_episode = max(1, -(-n // episodes))
    rows = [row for i in range(episodes) for row in episode_rows(f"train/{i}", seed=seed, per_episode=per_episode)]
    return rows[:n]
