"""The TDW-MAT agent kit: belief, CoELA's action list, the skill book, and a reader for partners' messages.

The reader records facts only: an object named `<name> (id)` in a sentence that also names a room `<Room> (id)`
is believed there (told); "... transported ... to the bed" marks the objects named as transported; "I will grab
<name> (id)" is kept as the partner's intent (which the affordances mark as its claim). It never turns a message
into an action.
"""

from __future__ import annotations

import re

from coopgraph.envs import TDW_MAT_CAPABILITIES
from coopgraph.envs.protocol import LABEL, AgentKit, Message
from coopgraph.envs.tdw_mat.affordances import TDWAffordances
from coopgraph.envs.tdw_mat.belief import TDWBelief
from coopgraph.envs.tdw_mat.env import TDWAgentInfo
from coopgraph.envs.tdw_mat.news import TDWNewsReporter
from coopgraph.envs.tdw_mat.skillbook import TDWSkillBook

_SENTENCES = re.compile(r"[^.;!?\n]+")
_TRANSPORTED = re.compile(r"\btransported\b", re.IGNORECASE)
_INTENT = re.compile(r"\b(will|going to|gonna|plan|let's|next|could you|can you)\b", re.IGNORECASE)
_GRAB_INTENT = re.compile(r"\bI(?:'ll| will| am going to|'m going to)\s+(?:go\s+)?(?:grab|grasp|get|take|pick up)\b",
                          re.IGNORECASE)


def read_message(belief: TDWBelief, message: Message) -> None:
    """Fold the facts a partner's message states into the belief."""
    heard = belief.partners.get(message.sender)
    if heard is not None:
        heard.last_heard_step = max(heard.last_heard_step, message.step)
    for sentence in _SENTENCES.findall(message.text):
        labels = [(m["name"], int(m["id"])) for m in LABEL.finditer(sentence)]
        rooms = [i for _, i in labels if i in belief.rooms]
        things = [(n, i) for n, i in labels if i not in belief.rooms and i != belief.bed_id]
        if _GRAB_INTENT.search(sentence) and things:
            belief.note_intent(message.sender, "gograb", things[0][1])
            continue
        if _TRANSPORTED.search(sentence) and not _INTENT.search(sentence):
            for name, object_id in things:
                if any(p.object_name == name for p in belief.goal):
                    belief.note_told(object_id, name, "item", belief.plan.bed_room, message.step)
                    belief.transported.add(object_id)
            continue
        if len(rooms) == 1 and not _INTENT.search(sentence):
            for name, object_id in things:
                kind = "item" if any(p.object_name == name for p in belief.goal) else "container"
                belief.note_told(object_id, name, kind, rooms[0], message.step)


def make_kit(env_info: TDWAgentInfo) -> AgentKit:
    """Registered as the `tdw-mat` kit; `env_info` is `TDWMatEnv.agent_info(agent_id)`."""
    belief = TDWBelief(env_info.agent_id, env_info)
    return AgentKit(
        belief=belief,
        affordances=TDWAffordances(),
        skillbook=TDWSkillBook(env_info.floorplan, env_info.bed_id, faithful_explore=env_info.faithful_explore),
        read_message=read_message,
        prompt_env="tdw-mat",
        capabilities=frozenset(TDW_MAT_CAPABILITIES),
        news=lambda belief: TDWNewsReporter(belief.message_limit),
    )
