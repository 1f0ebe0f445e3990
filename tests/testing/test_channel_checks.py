"""Every shipped wiring returns each channel it changes, so each step's checkpoint is the live state; a node that
changes a channel in place without returning it is caught by `check_saved_channels`."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.evals.bench.behaviour_traces import prompt_driven
from coopgraph.nodes.registry import NODES
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm
from coopgraph.testing.channel_checks import ChannelNotReturned, check_saved_channels, comparable

#: (world, make options, scripted partner, horizon in the world's unit)
WORLDS = {
    "cwah": ({"episode": "test/0", "num_agents": 2}, "mhp", 20),
    "tdw-mat": ({"episode": "train/0", "num_agents": 2}, "tdw-oracle", 150),
    "overcooked": ({"layout": "cramped_room"}, "greedy", 30),
}
RUNS = [("cwah", spec) for spec in ("coela", "coela-news", "capo", "reveca", "reveca-rules", "coela-nomemory")] + \
    [("tdw-mat", spec) for spec in ("coela", "capo", "reveca")] + \
    [("overcooked", spec) for spec in ("llmco", "capo", "coela")]


def _play(world: str, spec: str) -> None:
    options, partner, horizon = WORLDS[world]
    agent = check_saved_channels(GraphAgent(spec, lm=scripted_lm(prompt_driven)))
    run_episode(envs.make(world, **options), [agent, make_partner(partner)], max_steps=horizon, seed=0)


@pytest.mark.parametrize(("world", "spec"), RUNS)
def test_every_step_saves_every_channel_it_changed(world: str, spec: str) -> None:
    _play(world, spec)


def test_a_node_that_keeps_a_channel_change_to_itself_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    info = NODES.get("perception.perceive")

    def perceive_without_returning_the_belief(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
        update = info.fn(state, ctx)
        update.pop("belief")
        return update

    monkeypatch.setitem(NODES.entries, info.name, info.__class__(**{**info.__dict__,
                                                                     "fn": perceive_without_returning_the_belief}))
    with pytest.raises(ChannelNotReturned, match="channel\\(s\\) belief changed"):
        _play("cwah", "coela")


def test_comparable_data_ignores_set_order_and_survives_cycles() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self
            self.tags = {"b", "a"}

    assert comparable({"x": {"a", "b"}}) == comparable({"x": {"b", "a"}})
    assert comparable(Node()) == comparable(Node())
    other = Node()
    other.tags.add("c")
    assert comparable(other) != comparable(Node())
