"""Walking distances next to the listed actions: off in CoELA as published, on in coela-distances."""

from __future__ import annotations

import re
from pathlib import Path

from coopgraph.envs.cwah.annotate import my_distance
from tests.nodes.first_decision import first_decision

LINE = re.compile(r"^([A-Z]{1,2})\. (\[\w+\] <\w+> \(\d+\))(?: — ([\d.]+) m)?$", re.MULTILINE)


def test_published_coela_shows_no_distances() -> None:
    _, prompts = first_decision("coela")
    listed = LINE.findall(prompts[0])
    assert listed and all(metres == "" for _, _, metres in listed) and " m\n" not in prompts[0]


def test_coela_distances_notes_each_option_with_its_walking_distance() -> None:
    agent, prompts = first_decision("coela-distances")
    listed = LINE.findall(prompts[0])
    options = {o.text: o for o in agent.resources.affordances.available(agent.memory.semantic)}
    assert len(listed) >= 3 and all(text in options for _, text, _ in listed)  # the belief has not moved since
    for _, text, metres in listed:
        assert float(metres) == round(my_distance(agent.memory.semantic, options[text]), 1)


def test_notes_follow_their_option_when_the_chooser_rotates_the_list(tmp_path: Path) -> None:
    spec = tmp_path / "voting.yaml"
    spec.write_text("extends: coela-distances\nname: voting\nnodes:\n  choose_action:\n    params: {orders: 3}\n",
                    encoding="utf-8")
    _, prompts = first_decision(spec)
    assert len(prompts) == 3
    seen = [{text: metres for _, text, metres in LINE.findall(p)} for p in prompts]
    assert seen[0] == seen[1] == seen[2] and all(seen[0].values())
    assert len({LINE.findall(p)[0][1] for p in prompts}) == 3  # three different first options
