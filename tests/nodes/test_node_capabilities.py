"""Nodes read a world's belief through the capabilities they declare, and nothing of C-WAH's vocabulary.

Each node registers what it requires (`@node(..., requires=...)`), so a spec is refused on a world that lacks
it; nodes that need only the core (`progress.detect`, `perception.perceive`, `memory.retrieve`) run anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coopgraph import envs
from coopgraph.envs.capabilities import ProgressEvent
from coopgraph.envs.protocol import Affordance, AffordanceGroup, HouseObservation, Message, Observation
from coopgraph.envs.registry import kit_info
from coopgraph.graphs.compiler import node_context
from coopgraph.graphs.loader import load_spec
from coopgraph.memory.agent_memory import AgentMemory
from coopgraph.nodes.context import AgentResources, NodeContext
from coopgraph.nodes.families.communication import _already_said, scripted_openings
from coopgraph.nodes.families.dialogue import startup_text
from coopgraph.nodes.families.perception import PerceiveParams, perceive
from coopgraph.nodes.families.validation import check_plan
from coopgraph.nodes.registry import NODES
from coopgraph.nodes.reveca_notes import RevecaNotes
from coopgraph.prompts.render import render_messages
from tests.nodes.test_reveca_validation import _alice, _bob_came_by, _elsewhere

REVECA_LINES = {"objects", "goals", "rooms", "containers", "partners"}
REQUIRED = {
    "relevance.score": REVECA_LINES,
    "memory.focus": REVECA_LINES | {"spatial"},
    "validation.check_plan": REVECA_LINES | {"spatial"},
    "validation.await_answer": {"objects"},
    "dialogue.speak": {"objects", "goals", "rooms", "partners"},
    "communication.report_news": {"news", "partners"},
}
CORE_ONLY = ["progress.detect", "perception.perceive", "memory.retrieve", "communication.draft_message",
             "metaplan.discuss", "metaplan.design", "metaplan.evaluate", "metaplan.say", "metaplan.brief",
             "planning.choose_action", "text.describe"]


# ----------------------------------------------------------------------------- declared requirements
def test_nodes_declare_the_capabilities_they_read_and_cwah_has_them_all() -> None:
    cwah = kit_info("cwah").capabilities
    for name, needs in REQUIRED.items():
        assert NODES.get(name).requires == needs, name
        assert needs <= cwah, name
    for name in CORE_ONLY:
        assert NODES.get(name).requires == frozenset(), name


def test_the_always_ask_ablation_names_groups_not_kinds() -> None:
    validate = load_spec("reveca-alwaysask").spec.nodes["validate"]
    assert validate.params["groups"] == ["fetch", "inspect", "deliver"]
    params = NODES.get("validation.check_plan").params.model_validate(validate.params)
    assert params.groups == [AffordanceGroup.FETCH, AffordanceGroup.INSPECT, AffordanceGroup.DELIVER]


# ----------------------------------------------------------------------------- core observations only
@dataclass
class CoreBelief:
    """A belief with only the core protocol, as a world without rooms or objects has."""

    agent_id: str = "alice"
    seen: list[Observation] = field(default_factory=list)

    def update(self, obs: Observation) -> None:
        self.seen.append(obs)

    def progress_text(self, include_all: bool = False) -> str:
        return "nothing yet"

    def brief_text(self) -> str:
        return "nothing yet"

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        return []


@dataclass
class VectorStub:
    items: list[dict[str, Any]] = field(default_factory=list)

    def add_many(self, items: list[dict[str, Any]]) -> None:
        self.items.extend(items)


def _perceive(obs: Observation) -> tuple[CoreBelief, VectorStub, dict[str, Any]]:
    belief, vector = CoreBelief(), VectorStub()
    memory = AgentMemory(semantic=belief, vector=vector)  # type: ignore[arg-type]
    ctx = NodeContext("perceive", "perception.perceive", PerceiveParams(), AgentResources(memory=memory))
    return belief, vector, perceive({"observation": obs}, ctx)


def test_perception_works_on_a_core_observation_and_indexes_only_messages() -> None:
    obs = Observation(agent_id="alice", agent_name="Alice", time=3, horizon=10,
                      messages=[Message(sender="bob", text="the key is in the shed", step=2)])
    belief, vector, out = _perceive(obs)
    assert out["new_messages"] == 1 and belief.seen == [obs]
    assert out["belief"] is belief and "vector_log" in out  # the channels it changed are returned, not left behind
    assert vector.items == [{"text": 'bob said: "the key is in the shed"', "kind": "message", "step": 2,
                             "source": "told"}]


def test_perception_indexes_sightings_with_their_room_in_a_house() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    obs = env.reset(seed=0)[0]["alice"]
    assert isinstance(obs, HouseObservation) and obs.visible_objects
    _, vector, _ = _perceive(obs)
    sightings = [item for item in vector.items if item["kind"] == "observation"]
    assert len(sightings) == len(obs.visible_objects)
    assert all(item["room"] == obs.room and item["text"].endswith(f"in {obs.room}") for item in sightings)


def test_the_start_up_line_reads_the_room_from_the_belief() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    obs = env.reset(seed=0)[0]["alice"]
    kit = envs.agent_kit("cwah", env.agent_info("alice"))
    kit.belief.update(obs)
    core = Observation(agent_id="alice", agent_name="Alice", time=0, horizon=250)
    head = f"Hi, this is Alice. I am in the <{obs.room}> ({obs.room_id})."
    assert startup_text(core, kit.belief, RevecaNotes(), 300) == head  # no rooms in the observation: none needed
    assert startup_text(obs, kit.belief, RevecaNotes(), 300).startswith(f"{head} I see ")


# ----------------------------------------------------------------------------- validation by group
def _check(plan: Affordance, **params: Any) -> dict[str, Any]:
    """`validation.check_plan` (rules judge) on Alice's plan at step 10, Bob having been by the juice at step 6."""
    agent, _, obs = _alice()
    _bob_came_by(agent)
    later = _elsewhere(obs, 10)
    agent.memory.semantic.update(later)
    ctx = node_context(agent.loaded, "validate", agent.resources, agent.memory)
    ctx.params = ctx.params.model_copy(update={"judge": "rules", **params})
    update = check_plan({"choice_index": 0, "options": [plan], "observation": later}, ctx)
    assert update.pop("reveca") is ctx.memory.channels["reveca"]  # the notes it kept, returned
    return update


def test_validation_keys_on_the_plan_group_not_its_kind() -> None:
    fetch = Affordance(kind="take", group=AffordanceGroup.FETCH, target_id=310, target_name="juice", room_id=10)
    assert _check(fetch) == {"validation": "ask",
                                              "question": "Bob, have you taken or moved <juice> (310) since step 0?"}
    explore = Affordance(kind="gograb", group=AffordanceGroup.EXPLORE, target_id=310, target_name="juice", room_id=10)
    assert _check(explore) == {"validation": "skipped", "question": None}


def test_each_group_asks_with_its_own_verb() -> None:
    groups = [AffordanceGroup.FETCH, AffordanceGroup.INSPECT, AffordanceGroup.DELIVER, AffordanceGroup.OTHER]
    verbs = {AffordanceGroup.FETCH: "taken or moved", AffordanceGroup.INSPECT: "opened or emptied",
             AffordanceGroup.DELIVER: "filled", AffordanceGroup.OTHER: "changed"}
    for group, verb in verbs.items():
        plan = Affordance(kind="x", group=group, target_id=310, target_name="juice")
        out = _check(plan, mode="always", scope="groups", groups=groups)
        assert out["question"] == f"Bob, have you {verb} <juice> (310) since step 0?", group


# ----------------------------------------------------------------------------- drafting a message
FACTS = {"agent_name": "Alice", "partner_names": ["Bob"], "goal": "g", "progress": "p", "dialogue": "",
         "previous_actions": "", "step": 3, "max_steps": 250, "instructions": "i"}


def test_a_world_without_its_own_draft_template_gets_the_generic_one() -> None:
    cwah = render_messages("communication/draft_message", FACTS, "cwah")
    generic = render_messages("communication/draft_message", FACTS, "toyhouse")
    assert "household" in cwah[0]["content"] and "household" not in generic[0]["content"]
    assert generic[-1]["content"].endswith("My message:")


def test_scripted_openings_are_the_templates_to_name() -> None:
    openings = scripted_openings("communication/draft_message", "cwah")
    assert openings == ("hi, i will tell you", "thanks, i will do the same")
    assert "Hi, I will tell you" in render_messages("communication/draft_message", FACTS, "cwah")[-1]["content"]
    assert scripted_openings("communication/draft_message", "toyhouse") == ()
    draft = "Hi, I will tell you when I find <apple> (3)."
    assert _already_said(draft, {}, openings) and not _already_said(draft, {}, ())
    assert _already_said("I found <apple> (3).", {"dialogue": 'Bob: "I found <apple> (3)."'}, ())
