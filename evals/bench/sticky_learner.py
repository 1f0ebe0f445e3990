"""A scripted "sticky learner" in LLM-Co's kitchens: how many ticks it spends repeating a directive that did nothing.

The learner stands in for the distilled planners of issue 38 without loading a model: it answers LLM-Co's prompt
with the first listed directive that uses what it holds on a pot or the serving spot (an onion into a pot, a plate
loaded from a pot, a soup served), else the first listed option, so at a full or uncooked pot it asks the same
thing again from an unchanged kitchen, as the 270M planners did at temperature 0. It plays Alice beside the
greedy cook for 400 ticks on each of the paper's seven layouts, once under each wiring (`llmco` as published and
`llmco-steady` by default). What is counted comes from the skill book's typed report (`SkillStep.unchanged`),
never from its English reason: a directive ending having changed nothing is *idle*; one that ends so right after
the same directive ended so from the same situation is a *repeat*, and the ticks between the two ends are ticks
spent repeating.

    .venv/bin/python -m coopgraph.evals.bench.sticky_learner                     # the table, ~1 minute
    .venv/bin/python -m coopgraph.evals.bench.sticky_learner --specs llmco-lite,llmco-lite-steady
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import Any

from coopgraph import envs
from coopgraph.envs.overcooked.layouts import PAPER_LAYOUTS
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import Affordance, AgentInfo, Observation, SkillStatus, SkillStep
from coopgraph.nodes.state import PLAN
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import read_state

SPECS = ("llmco", "llmco-steady")
#: What the learner asks for first, by what it holds: the directive that uses it at a pot or the serving spot.
WANTS = {"onion": "place onion in c", "plate": "load soup on plate from c", "soup in plate": "place soup for delivery"}


def sticky_learner(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """LLM-Co's reply for the first listed directive that uses what is held (`WANTS`), else the first option."""
    kitchen = read_state(str(messages[-1].content))
    if kitchen is None:
        return "Got it!"  # the game and layout turn
    prefix = WANTS.get(kitchen.holding)
    pick = next((o for o in kitchen.options if prefix and o.startswith(prefix)), kitchen.options[0])
    return f"Explanation: scripted. Action: {pick}"


@dataclass
class RecordingSkills:
    """The kit's skill book, unchanged, with each directive's end noted: (tick, directive, `unchanged`)."""

    inner: Any
    ends: list[tuple[int, str, str | None]] = field(default_factory=list)

    def reset(self) -> None:
        self.inner.reset()

    def next_action(self, plan: Affordance, observation: Observation) -> SkillStep:
        step: SkillStep = self.inner.next_action(plan, observation)
        if step.status != SkillStatus.RUNNING:
            self.ends.append((observation.time, plan.text, step.unchanged))
        return step


class WatchedAgent(GraphAgent):
    """A graph agent whose skill book notes each directive's end (the graph and its nodes are the spec's own; the
    skill book travels in the checkpointed state, so the notes are read from the agent's memory at the end)."""

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        assert self._seed_channels is not None, "GraphAgent.reset seeds the channels"
        self._seed_channels[PLAN].skillbook = RecordingSkills(self._seed_channels[PLAN].skillbook)

    @property
    def ends(self) -> list[tuple[int, str, str | None]]:
        skills = self.memory.procedural if self.memory is not None else None
        assert isinstance(skills, RecordingSkills), "reset() the agent before reading its notes"
        return skills.ends


@dataclass(frozen=True)
class StickyCount:
    """One episode: directives that ended idle, how many of those repeated the one before, the ticks between the
    repeats' ends, and the team's score."""

    idle: int
    repeats: int
    repeat_ticks: int
    score: int


def count(ends: list[tuple[int, str, str | None]], score: int) -> StickyCount:
    """Idle ends, and repeats (an idle end equal in directive and situation to the end just before it)."""
    idle = sum(1 for _, _, unchanged in ends if unchanged is not None)
    repeats = ticks = 0
    for (before, *last), (now, *this) in zip(ends, ends[1:], strict=False):
        if this[1] is not None and this == last:
            repeats += 1
            ticks += now - before
    return StickyCount(idle, repeats, ticks, score)


def play(spec: str, layout: str, ticks: int = 400) -> StickyCount:
    """The sticky learner on `spec` as Alice beside the greedy cook on `layout`."""
    agent = WatchedAgent(spec, lm=scripted_lm(sticky_learner))
    result = run_episode(envs.make("overcooked", layout=layout), [agent, make_partner("greedy")], max_steps=ticks,
                         seed=0)
    score = result.metrics.get("score", 0)
    return count(agent.ends, int(score) if isinstance(score, int | float) else 0)


def table(specs: list[str], layouts: list[str], ticks: int) -> str:
    """A markdown table: per layout, each spec's ticks spent repeating, repeats, idle ends and the team's score."""
    head = "| layout | " + " | ".join(f"{s}: ticks repeating / repeats / idle ends / score" for s in specs) + " |"
    lines = [head, "| --- |" + " ---: |" * len(specs)]
    totals = {s: [0, 0, 0, 0] for s in specs}
    for layout in layouts:
        cells = []
        for spec in specs:
            found = play(spec, layout, ticks)
            for i, value in enumerate((found.repeat_ticks, found.repeats, found.idle, found.score)):
                totals[spec][i] += value
            cells.append(f"{found.repeat_ticks} / {found.repeats} / {found.idle} / {found.score}")
        lines.append(f"| {layout} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    lines.append("| all | " + " | ".join(" / ".join(map(str, totals[s])) for s in specs) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--specs", default=",".join(SPECS), help="wirings to compare (comma-separated)")
    parser.add_argument("--layouts", default=",".join(PAPER_LAYOUTS))
    parser.add_argument("--ticks", type=int, default=400)
    args = parser.parse_args(argv)
    print(table(args.specs.split(","), args.layouts.split(","), args.ticks))
    return 0


if __name__ == "__main__":  # the agent's state is pickled: its classes must come from the module's own name
    from coopgraph.evals.bench.sticky_learner import main as module_main

    sys.exit(module_main())
