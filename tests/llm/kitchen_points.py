"""What the distilled kitchen planners' slow tests share: the installed profile, and its answers to held-out
decision points of `cramped_room` (a paper layout, never in training) asked through the spec's own choice node."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph.evals.decisions import DecisionRenderer
from coopgraph.evals.overcooked_decisions import layout_decisions
from coopgraph.llm import model_files
from coopgraph.llm.factory import make_lm
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for, run_program


def installed_lm(profile: str) -> Any:
    """The profile's LM, uncached; fails (not skips) when set-up has not installed its base model."""
    if not model_files.is_installed(profile):
        pytest.fail(f"the {profile} base model is not installed; run `make setup` (make test does it)")
    return make_lm(profile, cache=False)


def answered_points(lm: Any, spec: str, n: int = 6) -> list[tuple[dict[str, Any], Any]]:
    """The first `n` points with three or more options, each with the spec's choice node's prediction."""
    renderer = DecisionRenderer(spec)
    points = [d for d in layout_decisions("cramped_room", ["greedy", "greedy"], renderer=renderer, horizon=80)
              if len(d["options"]) >= 3][:n]
    ctx = renderer.choose_context(AgentResources(env="overcooked", lm=lm))
    adapter = adapter_for(ctx)
    return [(point, run_program(ctx.program, adapter, lm, context=dict(point["facts"]), options=point["options"]))
            for point in points]
