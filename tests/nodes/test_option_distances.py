"""Walking distances next to the listed actions: off in CoELA as published, on in coela-distances."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from coopgraph import envs
from coopgraph.evals.graph_agent import GraphAgent
from coopgraph.nodes.candidates import my_distance
from coopgraph.testing import scripted_lm

LINE = re.compile(r"^([A-Z]{1,2})\. (\[\w+\] <\w+> \(\d+\))(?: — ([\d.]+) m)?$", re.MULTILINE)


def _choice_prompts(spec: str | Path) -> tuple[GraphAgent, list[str]]:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)

    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        listed = LINE.findall(messages[-1].content)
        return f"Reasoning: go\nAnswer: {listed[-1][0]}" if listed else "Hello."

    lm = scripted_lm(model)
    agent = GraphAgent(spec, lm=lm)
    agent.reset("alice", env.agent_info("alice"), 0)
    agent.act(observations["alice"])
    return agent, [m[-1].content for m, _ in lm.chat_model.calls if "Available actions:" in m[-1].content]


def test_published_coela_shows_no_distances() -> None:
    _, prompts = _choice_prompts("coela")
    listed = LINE.findall(prompts[0])
    assert listed and all(metres == "" for _, _, metres in listed) and " m\n" not in prompts[0]


def test_coela_distances_notes_each_option_with_its_walking_distance() -> None:
    agent, prompts = _choice_prompts("coela-distances")
    listed = LINE.findall(prompts[0])
    options = {o.text: o for o in agent.resources.affordances.available(agent.memory.semantic)}
    assert len(listed) >= 3 and all(text in options for _, text, _ in listed)  # the belief has not moved since
    for _, text, metres in listed:
        assert float(metres) == round(my_distance(agent.memory.semantic, options[text]), 1)


def test_notes_follow_their_option_when_the_chooser_rotates_the_list(tmp_path: Path) -> None:
    spec = tmp_path / "voting.yaml"
    spec.write_text("extends: coela-distances\nname: voting\nnodes:\n  choose_action:\n    params: {orders: 3}\n",
                    encoding="utf-8")
    _, prompts = _choice_prompts(spec)
    assert len(prompts) == 3
    seen = [{text: metres for _, text, metres in LINE.findall(p)} for p in prompts]
    assert seen[0] == seen[1] == seen[2] and all(seen[0].values())
    assert len({LINE.findall(p)[0][1] for p in prompts}) == 3  # three different first options
