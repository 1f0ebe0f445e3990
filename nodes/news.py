"""The `news` channel: what template news (`communication.report_news`) already told partners.

Template news lets partners hear what this agent did, found and goes for next, with no LLM writing it. A
planner that cannot write (the distilled `local-coop`) otherwise leaves its partner blind: two such agents
check the same containers and go for the same objects. The environment's reporter (C-WAH: MHP's templates,
which partners' message readers turn back into facts) decides what is news and whether it is worth a step.
The record lives apart from the node so that saved checkpoints, which name its module, keep loading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coopgraph.nodes.state import channel


@dataclass
class NewsRecord:
    """The `news` channel: the world's reporter (what was told already) and the plan last reported."""

    reporter: Any = None
    reported_plan_step: int | None = None


NEWS = channel("news", NewsRecord, NewsRecord, "what template news already told partners", family="news")
