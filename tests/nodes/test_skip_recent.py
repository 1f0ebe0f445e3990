"""Leaving just-finished actions off the list (coela-norevisit): no two-room shuttle for a weak planner."""

from __future__ import annotations

import re
from typing import Any

from coopgraph import envs
from coopgraph.envs.protocol import Affordance, AffordanceGroup, message_affordance
from coopgraph.memory.episodic import EpisodicMemory
from coopgraph.nodes.families.planning import without_recent
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

ROOMS = [Affordance(kind="goexplore", group=AffordanceGroup.EXPLORE, target_id=i, target_name=name)
         for i, name in ((10, "kitchen"), (60, "bedroom"))]
CHECK = Affordance(kind="gocheck", group=AffordanceGroup.INSPECT, target_id=13, target_name="cabinet")


def test_finished_actions_within_the_window_are_left_off_and_failed_ones_stay() -> None:
    memory = EpisodicMemory(10, 3)
    memory.add_action(ROOMS[0].text, 5, "done")
    memory.add_action(CHECK.text, 9, "failed")
    assert without_recent([*ROOMS, CHECK], memory, 0) == [*ROOMS, CHECK]  # off: the published list
    assert without_recent([*ROOMS, CHECK], memory, 2) == [ROOMS[1], CHECK]
    memory.add_action(ROOMS[1].text, 12, "done")
    memory.add_action(CHECK.text, 15, "interrupted")
    memory.add_action(CHECK.text, 18, "failed")
    assert without_recent([*ROOMS, CHECK], memory, 3) == [ROOMS[0], CHECK]  # the kitchen is 4 actions back now


def test_a_put_done_lately_is_still_offered_for_the_next_object() -> None:
    """A put delivers what is held now: the same text is due again once the hands hold another goal object."""
    memory = EpisodicMemory(10, 3)
    put = Affordance(kind="goput", group=AffordanceGroup.DELIVER, repeatable=True, target_id=161,
                     target_name="coffeetable", target_ids=(303,))  # C-WAH marks its puts repeatable
    memory.add_action(put.text, 34, "done")
    memory.add_action(ROOMS[0].text, 40, "done")
    assert without_recent([*ROOMS, CHECK, put], memory, 4) == [ROOMS[1], CHECK, put]


def test_the_list_is_never_left_empty_but_for_a_message() -> None:
    memory = EpisodicMemory(10, 3)
    for step, room in enumerate(ROOMS):
        memory.add_action(room.text, step, "done")
    message = message_affordance("hi")
    assert without_recent([message, *ROOMS], memory, 4) == [message, *ROOMS]


LINE = re.compile(r"^([A-Z]{1,2})\. \[goexplore\] ", re.MULTILINE)


def _explore_plans(spec: str) -> list[str]:
    """Plans of a CoELA agent whose model always explores the last room listed (a shuttle where rooms repeat)."""
    def model(messages: list[Any], kwargs: dict[str, Any]) -> str:
        rooms = LINE.findall(messages[-1].content)
        return f"Reasoning: go\nAnswer: {rooms[-1]}" if rooms else "Answer: A" if "Answer:" in messages[0].content \
            else "Hello."

    agent = GraphAgent(spec, lm=scripted_lm(model))
    env = envs.make("cwah", episode="test/2", num_agents=2)
    from coopgraph.envs.partners import make_partner

    run_episode(env, [agent, make_partner("mhp-silent")], max_steps=120)
    return [a.text for a in agent.memory.episodic.actions if a.text.startswith("[goexplore]")]


def test_norevisit_breaks_the_two_room_shuttle_that_published_coela_falls_into() -> None:
    published = _explore_plans("coela")
    assert len(published) >= 6 and len(set(published[-6:])) <= 2  # back and forth between two rooms
    fresh = _explore_plans("coela-norevisit")
    assert all(fresh[i] not in fresh[max(0, i - 2):i] for i in range(len(fresh)))


def test_grabs_a_partner_announced_are_left_off_unless_i_announced_first() -> None:
    from coopgraph.envs.cwah import CWAHAffordances, CWAHBelief
    from coopgraph.envs.cwah.belief import PartnerIntent
    from coopgraph.nodes.families.planning import without_claimed

    env = envs.make("cwah", episode="test/0", num_agents=3)
    observations, _ = env.reset(seed=0)
    belief = CWAHBelief("alice", env.agent_info("alice"))
    belief.update(observations["alice"])
    listed = CWAHAffordances().available
    grabs = [o for o in listed(belief) if o.kind == "gograb"]
    check = next(o for o in listed(belief) if o.kind == "gocheck")
    belief.partner_intents["bob"] = PartnerIntent(kind="gograb", target_id=grabs[0].target_id, step=3)
    belief.partner_intents["carol"] = PartnerIntent(kind="gocheck", target_id=check.target_id, step=4)  # only grabs
    options = listed(belief)
    assert [o.text for o in without_claimed(options)] == [o.text for o in options if o.text != grabs[0].text]
    assert {o.target_id for o in options if o.kind == "gograb"} - {
        o.target_id for o in without_claimed(options) if o.kind == "gograb"} == belief.announced_grabs()
    belief.intent = PartnerIntent(kind="gograb", target_id=grabs[0].target_id, step=1)  # I said it first: still mine
    options = listed(belief)
    assert without_claimed(options) == options and not belief.announced_grabs()
    belief.intent = None
    claimed_grab = next(o for o in listed(belief) if o.text == grabs[0].text)
    assert without_claimed([claimed_grab]) == [claimed_grab]  # never an empty list
