"""The one result of an episode, whoever played it: the episode loop, `coopgraph run`, a fork, a suite job, the API.

The loop fills in what the world says (success, time, metrics, messages); the launch adds what the run recorded
around it (LLM usage, invalid answers, model seeds, where a fork branched). One pydantic model for all of them keeps
the CLI's `--json`, the API's attributes and a suite's row reading the same names.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, computed_field

from coopgraph.envs.protocol import Message, MetricValue


class BudgetStop(BaseModel):
    """Where an episode stopped because its wall-clock budget ran out: at the end of the step that passed it, so
    its figures are those of a partial episode (a benchmark says it could not finish rather than score it)."""

    step: int = Field(description="the world's clock when the episode stopped, in its own unit")
    max_steps: int = Field(description="the horizon it would have run to")
    budget_s: float = Field(description="the wall-clock budget it was given, in seconds")
    wall_time_s: float = Field(description="its wall time when it stopped (the budget and the last step's time)")


class RunResult(BaseModel):
    """One episode's outcome: success, time in the world's unit, metrics, LLM usage and the trace file."""

    env: str
    episode_id: str
    team: list[str]
    agents: list[str]
    success: bool
    steps: int = Field(description="the world's clock when the episode ended, in its own unit (C-WAH: steps)")
    max_steps: int = Field(description="the horizon the episode ran to, in the world's unit")
    metrics: dict[str, MetricValue] = Field(default_factory=dict, description="team numbers, and per-agent "
                                            "splits such as Overcooked's deliveries_by_agent (who served)")
    per_agent: dict[str, dict[str, float]] = Field(default_factory=dict)
    messages: list[Message] = Field(default_factory=list)
    trace_path: str | None = None
    wall_time_s: float = 0.0
    llm_usage: dict[str, dict[str, float]] = Field(default_factory=dict, description="each graph member's LLM calls, "
                                                   "tokens, failed calls and fallbacks, by agent")
    invalid_answers: int = 0
    model_seeds: dict[str, int] = Field(default_factory=dict, description="the model seed each graph agent sampled "
                                        "with, by agent")
    deterministic: bool = Field(default=True, description="no member sampled: every LLM member asked at temperature "
                                "0, or the team has none")
    replay: str | None = Field(default=None, description="a `coopgraph replay` command for the run's first graph "
                               "agent, when its checkpoints were kept")
    stopped_at_budget: BudgetStop | None = Field(
        default=None, description="set when the episode ended at its wall-clock budget before success or horizon")
    forked_from: dict[str, Any] | None = Field(
        default=None, description="for a fork: the original trace, its episode, the step and what changed")

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented way to dump a property
    @property
    def episode(self) -> str:
        """The episode's id (`coopgraph.run(...).episode`, as the API has always named it)."""
        return self.episode_id

    def number(self, key: str) -> float:
        """The team metric `key` as a number (a per-agent mapping such as `deliveries_by_agent` is not one)."""
        value = self.metrics[key]
        if isinstance(value, dict):
            raise TypeError(f"metric {key!r} is one number per agent ({value}), not a team number")
        return value

    def payload(self) -> dict[str, Any]:
        """The result as one JSON-ready object: what `--json` prints and what a front end or a suite row reads."""
        return self.model_dump(mode="json")
