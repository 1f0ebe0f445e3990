"""Where `GraphAgent` used to live; it is `coopgraph.agent.GraphAgent` now, re-exported for old imports."""

from __future__ import annotations

from coopgraph.agent import GraphAgent

__all__ = ["GraphAgent"]
