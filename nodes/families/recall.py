"""Memory nodes: turn the agent's memory into the facts a prompt needs.

`memory.retrieve` gathers the generic ones (goal, progress, dialogue, previous actions); `memory.layout` adds a
world's fixed map facts (LLM-Co's layout description); `memory.focus` adds REVECA's focused view (relevant
objects, partners' estimated places), whose lines `focus.py` writes. The memory itself (belief, episodic and
vector stores) is the `coopgraph.memory` package; this module is named `recall` so it does not read as that
package, while its nodes keep the `memory.` names specs use (`FAMILY`).
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.capabilities import Belief, LayoutFacts, Partners
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.families.relevance import NEEDS
from coopgraph.nodes.focus import FocusParams, dialogue_lines, known_lines, self_text
from coopgraph.nodes.keys import FACTS
from coopgraph.nodes.partner_model import describe_partner
from coopgraph.nodes.registry import node
from coopgraph.nodes.reveca_notes import reveca_notes

#: The prefix of this module's node names, which differs from the module's own name (see the docstring).
FAMILY = "memory"


class RetrieveParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    recall_k: int = Field(default=0, ge=0, le=20, description="vector-store memories recalled for the goal")
    forget_belief: bool = Field(default=False, description="ablation: rebuild the belief from this step only")
    all_objects: bool = Field(default=False, description="list every object seen, not only goal-related ones")
    brief: bool = Field(default=False, description="progress as the belief's `brief_text` (hands, what is still "
                        "to fetch, partners), for a shortlist planner that reads where things are from its options")
    action_texts: bool = Field(default=False, description="also give the kept actions' texts alone, oldest first "
                               "(`action_texts`), for a prompt that lists its history as LLM-Co's does")


def _progress(belief: Belief, params: RetrieveParams) -> str:
    """The belief's progress line: the brief one when asked for, else the full one."""
    if params.brief:
        return belief.brief_text()
    return belief.progress_text(include_all=params.all_objects)


#: The facts `memory.retrieve` gives every step (`recalled` too, when a vector store recalls anything).
RETRIEVED = ("agent_name", "partner_names", "goal", "progress", "dialogue", "previous_actions", "step", "max_steps")

#: The facts among them that change with the clock alone: the step and the action log's step stamps (with
#: `action_texts`, the same log without them). A view without these is what the agent sees of the world.
CLOCK_FACTS = ("step", "previous_actions")


def _retrieved(params: RetrieveParams) -> tuple[str, ...]:
    return (*RETRIEVED, "action_texts") if params.action_texts else RETRIEVED


@node("memory.retrieve", reads=("observation",), writes=(FACTS,), params=RetrieveParams, adds_facts=_retrieved)
def retrieve(state: dict[str, Any], ctx: NodeContext[RetrieveParams]) -> dict[str, Any]:
    """Gather template variables from semantic, episodic and (optionally) vector memory."""
    obs = state["observation"]
    memory = ctx.memory
    if ctx.params.forget_belief:
        assert ctx.resources.belief_factory is not None, "forget_belief needs the runner's belief factory"
        memory.reset_belief(ctx.resources.belief_factory)
        ctx.belief.update(obs)
    partners = [p for p in ctx.resources.agents if p != obs.agent_id]
    facts: dict[str, Any] = {
        "agent_name": obs.agent_name,
        "partner_names": [p.capitalize() for p in partners],
        "goal": obs.goal_text,
        "progress": _progress(ctx.belief, ctx.params),
        "dialogue": memory.episodic.dialogue_text(),
        "previous_actions": memory.episodic.actions_text(),
        "step": obs.time,
        "max_steps": obs.horizon,
    }
    if ctx.params.action_texts:
        facts["action_texts"] = [record.text for record in memory.episodic.actions]
    if ctx.params.recall_k and memory.vector is not None:
        recalled = memory.vector.recall(obs.goal_text, k=ctx.params.recall_k)
        facts["recalled"] = [entry.text for entry in recalled]
    return {"facts": facts}


@node("memory.layout", reads=("facts",), writes=(FACTS,), requires={"layout"}, adds_facts=("layout",))
def layout(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Add the world's fixed map facts (`layout`) to the facts, in the labels its state text uses.

    LLM-Co describes the layout (which places exist and who can reach them) before every question; the world
    computes those facts once per kitchen and the world's own template words them. A node of its own because it
    needs the `layout` capability, which `memory.retrieve` (run in every world) must not require."""
    facts = dict(state.get("facts") or {})
    facts["layout"] = dict(cast(LayoutFacts, ctx.belief).layout_facts())
    return {"facts": facts}


@node("memory.focus", reads=("facts", "observation", "reveca"), writes=(FACTS,), params=FocusParams,
      requires=NEEDS | {"spatial"}, adds_facts=("self_text", "known", "partners", "dialogue_lines"))
def focus(state: dict[str, Any], ctx: NodeContext[FocusParams]) -> dict[str, Any]:
    """Add REVECA's facts: me, relevant objects (by level, then distance), partners' estimated places.

    Objects rated "none" are left out here, which is what keeps dummy objects out of the planning prompt.
    """
    obs = state["observation"]
    belief = ctx.belief
    notes = reveca_notes(ctx.memory)
    params = ctx.params
    partners = []
    if params.partner_info:
        partners = [describe_partner(notes, belief, agent_id, obs.time, params.spatial)
                    for agent_id in sorted(cast(Partners, belief).partners)]
    facts = dict(state.get("facts") or {})
    facts.update({
        "self_text": self_text(belief),
        "known": known_lines(belief, notes, params),
        "partners": partners,
        "dialogue_lines": dialogue_lines(ctx.memory, notes, params),
    })
    return {"facts": facts}

