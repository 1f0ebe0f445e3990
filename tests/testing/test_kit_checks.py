"""check_kit, the public conformance test of a world's kit: it passes on the shipped worlds and names what a
kit that over-promises lacks."""

from __future__ import annotations

from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs import registry
from coopgraph.envs.capabilities import ProgressEvent
from coopgraph.envs.protocol import AgentKit, Observation
from coopgraph.testing import check_kit
from coopgraph.testing.toyhouse import episode_names, make_toyhouse
from coopgraph.testing.toyhouse.kit import make_kit


@pytest.mark.parametrize("env_name", ["cwah", "cwah-noisy"])
def test_check_kit_passes_on_cwah(env_name: str) -> None:
    report = check_kit(env_name, steps=10)
    assert report.capabilities == envs.kit_info(env_name).capabilities and report.ticks == 10
    assert {"explore", "inspect", "fetch"} <= set(report.affordances.values()) and report.valued_looks > 0


def test_check_kit_passes_on_toyhouse_in_every_episode() -> None:
    report = check_kit("toyhouse", episodes=episode_names(), steps=25)
    assert report.agents == ["agent_0", "agent_1"] and report.ticks == 4 * 25
    assert "look_values" not in report.capabilities and report.valued_looks == 0  # it publishes no look values
    assert report.affordances == {"visit": "explore", "fetch": "fetch", "open": "inspect", "deliver": "deliver"}
    assert report.primitives == {"move", "take", "open", "drop"} and report.progress_events > 0


class _Forgetful:
    """A belief with the core members only."""

    def __init__(self, agent_id: str) -> None:
        self.agent_id = agent_id
        self.message_limit = 500

    def update(self, obs: Observation) -> None:
        pass

    def progress_text(self, include_all: bool = False) -> str:
        return ""

    def brief_text(self) -> str:
        return ""

    def progress_events(self, obs: Observation) -> list[ProgressEvent]:
        return []


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test vanish after it."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_KITS", dict(registry._KITS))


def _register(name: str, kit: Any, capabilities: tuple[str, ...]) -> None:
    envs.register(name, make_toyhouse)
    envs.register_kit(name, kit, capabilities=capabilities, prompt_env="toyhouse")


class _Affordances:
    """A kit's affordances with every option rewritten by `change` (a test's way to make a kit misbehave)."""

    def __init__(self, inner: Any, change: Any) -> None:
        self.inner, self.change = inner, change

    def available(self, belief: Any, message: str | None = None) -> list[Any]:
        return [self.change(o, belief) for o in self.inner.available(belief, message)]


def test_a_kit_declaring_a_capability_it_lacks_fails_naming_the_member(scratch_registry: None) -> None:
    def liar(env_info: dict[str, Any]) -> AgentKit:
        kit = make_kit(env_info)
        kit.belief = _Forgetful(env_info["agent_id"])
        kit.capabilities, kit.news = frozenset({"containers"}), None
        return kit

    _register("toyhouse-liar", liar, ("containers",))
    with pytest.raises(AssertionError, match="capability 'containers' is declared but the belief lacks its member "
                                             "'checked_containers'"):
        check_kit("toyhouse-liar")


def test_a_kit_built_with_other_capabilities_than_registered_fails(scratch_registry: None) -> None:
    _register("toyhouse-modest", make_kit, ("objects", "goals"))
    with pytest.raises(AssertionError, match=r"capabilities \[.*'spatial'\] differ from the registered "
                                             r"\['goals', 'objects'\]"):
        check_kit("toyhouse-modest")


def test_a_kit_promising_look_values_must_fill_them(scratch_registry: None) -> None:
    from coopgraph.envs.cwah.kit import make_kit as make_cwah_kit

    def kit(env_info: dict[str, Any]) -> AgentKit:
        made = make_cwah_kit(env_info)
        made.affordances = _Affordances(made.affordances, lambda o, b: o.model_copy(update={"value": None}))
        return made

    envs.register("cwah-unvalued", "coopgraph.envs.cwah.env:make_cwah")
    envs.register_kit("cwah-unvalued", kit, capabilities=envs.CWAH_CAPABILITIES, prompt_env="cwah")
    assert check_kit("cwah", steps=3).valued_looks > 0  # the same ticks with values pass
    with pytest.raises(AssertionError, match="'look_values' is declared but no inspect or explore option had a "
                                             "value"):
        check_kit("cwah-unvalued", steps=3)


def test_a_kit_filling_look_values_it_does_not_declare_fails(scratch_registry: None) -> None:
    from coopgraph.testing.toyhouse.expert import look_value

    def kit(env_info: dict[str, Any]) -> AgentKit:
        made = make_kit(env_info)
        made.affordances = _Affordances(made.affordances,
                                        lambda o, b: o.model_copy(update={"value": look_value(o, b) or None}))
        return made

    assert "look_values" not in envs.TOYHOUSE_CAPABILITIES
    _register("toyhouse-valued", kit, envs.TOYHOUSE_CAPABILITIES)
    with pytest.raises(AssertionError, match=r"affordance '\[visit\] <\w+> \(\d+\)' has a value \(2\.0\) but the "
                                             r"kit does not declare 'look_values'"):
        check_kit("toyhouse-valued", steps=3)


def test_a_label_that_does_not_read_back_fails(scratch_registry: None) -> None:
    from coopgraph.testing.toyhouse.affordances import HouseAffordances

    class Spaced(HouseAffordances):
        def available(self, belief: Any, message: str | None = None) -> list[Any]:
            return [o.model_copy(update={"target_name": f"big {o.target_name}"}) if o.target_id else o
                    for o in super().available(belief, message)]

    def kit(env_info: dict[str, Any]) -> AgentKit:
        made = make_kit(env_info)
        made.affordances = Spaced()  # type: ignore[assignment]
        return made

    _register("toyhouse-spaced", kit, envs.TOYHOUSE_CAPABILITIES)
    with pytest.raises(AssertionError, match=r"affordance '\[visit\] <big kitchen> \(1\)': its label reads back"):
        check_kit("toyhouse-spaced", steps=2)
