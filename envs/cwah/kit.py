"""The C-WAH agent kit: belief, action list, skill book, and a reader for the facts in partners' messages.

Partners may speak in MHP's templates or in free text that names objects as `<name> (id)`, the way the
action list does. The reader only records facts (where an object is, which container is empty, who
holds what); it never turns a message into an action, so a message cannot push an agent outside its
action list.
"""

from __future__ import annotations

import re

from coopgraph.envs import CWAH_CAPABILITIES
from coopgraph.envs.cwah.affordances import CWAHAffordances
from coopgraph.envs.cwah.belief import CWAHBelief
from coopgraph.envs.cwah.catalog import CONTAINER_CLASSES, ROOM_TYPES, SURFACE_CLASSES
from coopgraph.envs.cwah.env import CWAHAgentInfo
from coopgraph.envs.cwah.messages import read_message as read_template
from coopgraph.envs.cwah.news import NewsReporter
from coopgraph.envs.cwah.skillbook import CWAHSkillBook
from coopgraph.envs.protocol import LABEL_PATTERN, AgentKit, Message

_LABEL = LABEL_PATTERN  # `<name> (id)`, plain groups: `_PLACED` holds two
_PLACED = re.compile(rf"{_LABEL}[^<.;!?]{{0,40}}?\b(in|inside|on)\b[^<.;!?]{{0,20}}?{_LABEL}")
_EMPTY_WORDS = re.compile(r"\b(empty|nothing|no goal|checked|already looked)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"[^.;!?|]+")
_INTENT_WORDS = re.compile(r"\b(will|going to|gonna|should|plan|let's|let us|next|could you|can you)\b", re.IGNORECASE)


def read_free_text(belief: CWAHBelief, message: Message) -> None:
    """Facts stated in free text: `<x> (i) in/on <y> (j)` places x; a sentence saying a container is
    empty or checked marks it checked."""
    for sentence in _SENTENCES.findall(message.text):
        if _INTENT_WORDS.search(sentence):
            continue  # "I will put <x> on <y>" is an intention, not where x is
        for name, oid, relation, holder, hid in _PLACED.findall(sentence):
            if holder in ROOM_TYPES or name in CONTAINER_CLASSES | SURFACE_CLASSES:
                continue
            inside, holder_id = relation in ("in", "inside"), int(hid)
            belief.note_object(
                int(oid), name, "item", None, inside=holder_id if inside else None, on=None if inside else holder_id
            )
        if _EMPTY_WORDS.search(sentence):
            for name, cid in re.findall(_LABEL, sentence):
                if name in CONTAINER_CLASSES:
                    known = belief.objects.get(int(cid))
                    belief.note_object(int(cid), name, "container", known.room_id if known else None)
                    belief.note_checked(int(cid))


def read_message(belief: CWAHBelief, message: Message) -> None:
    """Template sections first (exact), then whatever free text states."""
    if any(part.startswith(("P: ", "I: ", "B: ")) for part in message.text.split(" | ")):
        read_template(belief, message)
    else:
        read_free_text(belief, message)


def make_kit(env_info: CWAHAgentInfo) -> AgentKit:
    """Registered as the `cwah` (and `cwah-noisy`) kit; `env_info` is `CWAHEnv.agent_info(agent_id)`."""
    return AgentKit(
        belief=CWAHBelief(env_info.agent_id, env_info),
        affordances=CWAHAffordances(),
        skillbook=CWAHSkillBook.from_env_info(env_info),
        read_message=read_message,
        prompt_env="cwah",
        capabilities=frozenset(CWAH_CAPABILITIES),
        news=lambda belief: NewsReporter(belief.config.max_message_chars),
    )
