"""The per-step keys of the decision contract that several node families write: the facts a prompt reads, the
options offered, the choice made and the action sent (planning, CaPo's `metaplan.say`, REVECA's validation and
dialogue all write some of them). A key only one family writes is declared in that family's module instead."""

from __future__ import annotations

from typing import Any

from coopgraph.envs.protocol import PrimitiveAction
from coopgraph.nodes.state import key

FACTS = key("facts", dict[str, Any], start={}, family="decision",
            doc="template variables gathered from memory; each writer returns the whole dict")
ACTIONS = key("actions", list[str], family="decision", doc="the action list as the LLM sees it")
OPTIONS = key("options", list[Any], family="decision", doc="the same actions as environment objects (Affordance)")
CHOICE = key("choice", str | None, family="decision", doc="the chosen action's text")
CHOICE_INDEX = key("choice_index", int | None, family="decision", doc="the chosen action's place in `options`")
INVALID = key("invalid", bool, family="decision", doc="the model's last answer could not be used")
ACTION = key("action", PrimitiveAction | None, family="decision",
             doc="the primitive action to send this step, or None to idle")
