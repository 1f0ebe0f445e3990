"""Reasoning questions from Overcooked: snapshots of two greedy cooks playing a layout, with answers from the world.

At each choice one greedy cook makes among two or more directives we freeze its belief (LLM-Co's state D(S)) and ask:
- EC: how many onions a pot still needs (from the pot's count), or which onion dispenser is nearest to me (the
  world's BFS distances; "equally near" on a tie);
- TOM: which directive my partner is carrying out now (the partner cook's own current directive, recorded);
- JP: which directive to take (the greedy cook's own choice among the feasible ones).
The game description is the one LLM-Co's graph sends (`planning/llmco_choose`'s opening turn).
"""

from __future__ import annotations

import copy
import random

from coopgraph import envs
from coopgraph.envs.overcooked.affordances import MOVE_AWAY, WAIT, KitchenAffordance
from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.experts.cooks import GreedyCook
from coopgraph.envs.protocol import AgentInfo, Observation, PrimitiveAction
from coopgraph.evals.reasoning.generate_rows import DIRECTIVES, Choice, question_row, sample_choice
from coopgraph.prompts.render import render_messages
from coopgraph.runtime.episode_loop import run_episode

GAME = "Overcooked"


class QuizCook(GreedyCook):
    """The greedy cook, keeping a copy of its belief at each real choice and its directive at every tick."""

    name = "greedy"

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        self.choices: list[tuple[int, OvercookedBelief, list[str], str]] = []
        self.plans: dict[int, str | None] = {}

    def choose(self, belief: OvercookedBelief, options: list[KitchenAffordance]) -> KitchenAffordance:
        choice = super().choose(belief, options)
        texts = [o.text for o in options]
        if len(options) >= 2 and not set(texts) <= {WAIT, MOVE_AWAY}:
            self.choices.append((belief.time, copy.deepcopy(belief), texts, choice.text))
        return choice

    def act(self, observation: Observation) -> PrimitiveAction:
        action = super().act(observation)
        self.plans[observation.time] = self.plan.text if self.plan is not None else None
        return action


def game_description(belief: OvercookedBelief) -> str:
    variables = {"agent_name": belief.agent_name, "partner_names": [belief.partner_name],
                 "layout": belief.layout_facts(), "action_texts": [], "progress": "", "options": []}
    text = render_messages("planning/llmco_choose", variables, "overcooked")[1]["content"]
    return text.split("Each time I will send you")[0].strip()  # each question's directive states the reply form


def pot_question(belief: OvercookedBelief, rng: random.Random) -> tuple[str, Choice] | None:
    unfilled = [(label, pot) for label, pot in belief.pots.items() if not pot.cooking and not pot.ready]
    if not unfilled:
        return None
    label, pot = rng.choice(unfilled)
    options = ["0", "1", "2", "3"]
    return f"How many more onions does {label} need before it starts cooking?", Choice(options, [3 - pot.onions])


def dispenser_question(belief: OvercookedBelief) -> tuple[str, Choice] | None:
    near = {label: belief.my_reach(label).distance for label in belief.kitchen.ids("o")}
    measured = {label: d for label, d in near.items() if d is not None}
    if not 2 <= len(near) <= 4 or not measured:
        return None
    best = min(measured.values())
    options = [f"Onion dispenser {label} is nearest to me." for label in near] + ["They are equally near to me."]
    winners = [i for i, (label, d) in enumerate(near.items()) if d == best]
    return "Which onion dispenser is nearest to me?", Choice(options, winners if len(winners) == 1 else
                                                           [len(options) - 1])


def layout_rows(layout: str, *, seed: int, per_layout: int, horizon: int = 200) -> list[dict[str, str]]:
    """Up to `per_layout` rows (EC, TOM and JP each) from one layout played by two greedy cooks."""
    env = envs.make("overcooked", layout=layout, horizon=horizon)
    cooks = [QuizCook(), QuizCook()]
    run_episode(env, cooks, seed=seed)
    rng = random.Random(f"{layout}:{seed}")
    rows: list[dict[str, str]] = []
    for me, partner in ((cooks[0], cooks[1]), (cooks[1], cooks[0])):
        for time, belief, options, choice in me.choices:
            intent = partner.plans.get(time)
            origin = next((c for c in reversed(partner.choices) if c[0] <= time and c[3] == intent), None)
            ec = pot_question(belief, rng) if rng.random() < 0.5 else dispenser_question(belief)
            ec = ec or dispenser_question(belief) or pot_question(belief, rng)
            if intent is None or origin is None or ec is None or len(set(origin[2])) < 3 or len(set(options)) < 3:
                continue
            state = belief.progress_text()
            rows.append(question_row(
                game=GAME, layout=layout, state=state, description=game_description(belief),
                ec=(f"{state}\n\n{ec[0]}", ec[1]),
                tom=(f"{state}\n\nWhat is {belief.partner_name} doing now?",
                     sample_choice(origin[2], intent, rng)),
                jp=(f"{state}\n\nWhat should I do next?", sample_choice(options, choice, rng)),
                concept=f"tick {time}, {belief.agent_name}", directives=DIRECTIVES))
    rng.shuffle(rows)
    return rows[:per_layout]


def world_rows(seed: int, n: int) -> list[dict[str, str]]:
    """About `n` rows spread over LLM-Co's layouts (the paper's seven first)."""
    from coopgraph.envs.overcooked.layouts import PAPER_LAYOUTS

    per_layout = max(1, -(-n // len(PAPER_LAYOUTS)))
    rows = [row for layout in PAPER_LAYOUTS for row in layout_rows(layout, seed=seed, per_layout=per_layout)]
    return rows[:n]
