"""The C-WAH message reader records stated facts, never intentions, and never actions."""

from __future__ import annotations

from coopgraph import envs
from coopgraph.envs.protocol import Message


def _belief():
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    kit = envs.agent_kit("cwah", env.agent_info("alice"))
    kit.belief.update(observations["alice"])
    return kit


def test_stated_placement_is_recorded_but_an_intention_is_not() -> None:
    kit = _belief()
    kit.read_message(kit.belief, Message(sender="bob", text="I put <plate> (777) on <kitchentable> (61).", step=1))
    kit.read_message(kit.belief, Message(sender="bob", text="I will put <fork> (778) on <kitchentable> (61).", step=1))
    assert kit.belief.objects[777].on == 61
    assert 778 not in kit.belief.objects
