"""`check_world` passes on every shipped world and names the problem of a world that breaks the protocol."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from coopgraph import envs
from coopgraph.envs import registry
from coopgraph.envs.protocol import MetricValue
from coopgraph.testing import check_world
from coopgraph.testing.toyhouse.env import HouseMetrics, ToyhouseEnv


@pytest.mark.parametrize("name", envs.registered())
def test_every_shipped_world_implements_the_world_protocol(name: str) -> None:
    report = check_world(name)
    assert report.env == name
    assert report.info_type.endswith("AgentInfo") and report.info_type != "AgentInfo"
    assert {"success", "steps"} <= set(report.summary)


class _SecondsWorld(ToyhouseEnv):
    time_unit: ClassVar[Any] = "seconds"


class _OtherDefaultWorld(ToyhouseEnv):
    default_episode: ClassVar[str] = "toyhouse/1"


class _SplitMetrics(HouseMetrics):
    """A summary with a figure split by agent, as Overcooked's `deliveries_by_agent`; `only` leaves agents out."""

    only: ClassVar[int | None] = None

    def summary(self) -> dict[str, MetricValue]:  # type: ignore[override]
        agents = sorted(self.per_agent)[: self.only]
        return {**super().summary(), "travel_by_agent": {a: float(self.per_agent[a].travel_distance) for a in agents}}


def _split_world(agents: int | None) -> type:
    class _Metrics(_SplitMetrics):
        only = agents

    class _SplitWorld(ToyhouseEnv):
        def metrics(self) -> HouseMetrics:
            return _Metrics(**super().metrics().model_dump())

    return _SplitWorld


@pytest.fixture
def broken_world() -> Iterator[str]:
    name = "toyhouse-broken-world"
    yield name
    registry._REGISTRY.pop(name, None)
    registry._DEFAULT_EPISODES.pop(name, None)


@pytest.mark.parametrize(("world", "problem"), [(_SecondsWorld, "time_unit 'seconds'"),
                                                (_OtherDefaultWorld, "default_episode 'toyhouse/1'")])
def test_a_world_breaking_the_protocol_is_named_with_its_problem(broken_world: str, world: type, problem: str) -> None:
    envs.register(broken_world, lambda **options: world(name=broken_world, **options), default_episode="toyhouse/0")
    with pytest.raises(AssertionError, match=rf"check_world\('{broken_world}'\): {problem}"):
        check_world(broken_world)


def test_a_summary_may_split_a_figure_by_agent_but_must_name_every_agent(broken_world: str) -> None:
    envs.register(broken_world, lambda **options: _split_world(None)(name=broken_world, **options),
                  default_episode="toyhouse/0")
    split = check_world(broken_world).summary["travel_by_agent"]
    assert isinstance(split, dict) and set(split) == {"agent_0", "agent_1"}
    envs.register(broken_world, lambda **options: _split_world(1)(name=broken_world, **options),
                  default_episode="toyhouse/0", replace=True)
    with pytest.raises(AssertionError, match=r"or to a float for each of \['agent_0', 'agent_1'\]"):
        check_world(broken_world)
