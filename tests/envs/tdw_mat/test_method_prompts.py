"""CaPo and REVECA render their TDW-MAT prompts (chosen by the kit's `prompt_env`), not the generic or C-WAH ones:
each prompt the scripted model is asked carries the transport task's frames and bed."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.graphs.loader import GRAPHS_DIR, load_spec
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from tests.testing.test_toyhouse_specs import _script

#: A line only each TDW-MAT template writes, by the method that renders it.
MARKS = {
    "capo": ["I write the meta-plan for our team", "wrote a meta-plan for moving target objects to the bed",
             "We follow a meta-plan that gives each of us subtasks"],
    "reveca": ["sorting what I notice in a house by how much it matters for moving target objects",
               "I choose my next plan from a few candidates"],
}


@pytest.mark.parametrize("spec", sorted(MARKS))
def test_capo_and_reveca_ask_their_tdw_mat_prompts(spec: str) -> None:
    prompts: list[str] = []
    reply = _script()

    def recording(messages: list[Any], kwargs: dict[str, Any]) -> str:
        prompts.append("\n".join(str(m.content) for m in messages))
        return reply(messages, kwargs)

    team = [GraphAgent(load_spec(GRAPHS_DIR / f"{spec}.yaml", env="tdw-mat"), lm=scripted_lm(recording),
                       vector_memory=False) for _ in range(2)] if spec == "capo" else [
        GraphAgent(load_spec(GRAPHS_DIR / f"{spec}.yaml", env="tdw-mat"), lm=scripted_lm(recording),
                   vector_memory=False), make_partner("rhp")]
    run_episode(envs.make("tdw-mat", episode="train/12", num_agents=2, max_steps=120), team)
    for mark in MARKS[spec]:
        assert any(mark in p for p in prompts), f"no prompt carried {mark!r}"
    assert not any("household task" in p for p in prompts)  # C-WAH's wording never leaks in
