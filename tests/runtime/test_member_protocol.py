"""The typed TeamMember protocol: the runtime asks a member without probing it, every registered scripted partner
passes `check_member`, graph agents, the human and a fork's catching-up member implement it explicitly."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from coopgraph import envs
from coopgraph.envs.partners import make_partner, partners
from coopgraph.envs.protocol import MemberBase, Observation, PrimitiveAction, TeamMember
from coopgraph.graphs.loader import load_spec
from coopgraph.play.member import HumanMember
from coopgraph.record.recorded_run import RecordedRun
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.fork_catch_up import ForkedMember, ForkedWorld
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.runtime.launch import _close_members, _usage
from coopgraph.testing import check_member, scripted_lm
from tests.play.seats import ScriptedSeat

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "coopgraph/runtime").glob("*.py"))
#: What the runtime calls a member, a team, or the member a fork wraps.
MEMBER_NAMES = {"member", "members", "m", "team", "players", "inner", "agent_member"}


def _probes_of_a_member(source: str) -> list[int]:
    """Lines of `getattr(...)`/`hasattr(...)` whose object is a member, and of any `__getattr__` (forwarding every
    attribute to a wrapped member hides what it provides)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            lines.append(node.lineno)
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args):
            continue
        named = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
        named |= {n.attr for n in ast.walk(node.args[0]) if isinstance(n, ast.Attribute)}
        if named & MEMBER_NAMES:
            lines.append(node.lineno)
    return sorted(lines)


@pytest.mark.parametrize("module", RUNTIME)
def test_the_runtime_never_probes_a_member_with_getattr_or_hasattr(module: str) -> None:
    assert _probes_of_a_member((ROOT / module).read_text()) == []


def test_the_probe_finder_sees_a_probe_of_a_member_and_a_forwarding_wrapper() -> None:
    source = ('a = getattr(member, "graph", None)\nb = hasattr(self.inner, "x")\nc = getattr(env, "layout")\n'
              "class W:\n    def __getattr__(self, name):\n        return 1\n")
    assert _probes_of_a_member(source) == [1, 2, 5]


@pytest.mark.parametrize("partner", partners())
def test_every_registered_scripted_partner_passes_check_member(partner: str) -> None:
    report = check_member(partner)
    assert report.member_type and not report.decides_concurrently and not report.samples
    assert all(report.actions.values()), report  # it chose an action in every world it plays


class Mumbler(MemberBase):
    """A member that answers with text instead of an action."""

    name = "mumbler"

    def reset(self, agent_id: str, env_info: Any, seed: int) -> None:
        pass

    def act(self, observation: Observation) -> PrimitiveAction:
        return "[wait]"  # type: ignore[return-value]  # the mistake check_member must catch


class Bare:
    """Duck-typed the old way: reset and act only."""

    name = "bare"

    def reset(self, agent_id: str, env_info: Any, seed: int) -> None:
        pass

    def act(self, observation: Observation) -> PrimitiveAction:
        return PrimitiveAction(kind="wait")


def test_check_member_names_the_member_the_world_and_the_problem() -> None:
    with pytest.raises(AssertionError, match=r"check_member\('mumbler' in 'cwah'\): act\(\) must return a "
                                             "PrimitiveAction, got str"):
        check_member(Mumbler(), "cwah")
    with pytest.raises(AssertionError, match="Bare in 'cwah'.*does not implement.*MemberBase"):
        check_member(Bare(), "cwah")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name the world"):
        check_member(Mumbler())


def test_run_episode_refuses_a_member_that_does_not_implement_the_protocol() -> None:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    with pytest.raises(TypeError, match="Bare does not implement coopgraph.envs.protocol.TeamMember.*MemberBase"):
        run_episode(env, [make_partner("mhp"), Bare()])  # type: ignore[list-item]


def _graph(spec: str = "coela-brief", **settings: Any) -> GraphAgent:
    lm = scripted_lm(["A"])
    lm.settings_public = {**lm.settings_public, **settings}
    return GraphAgent(load_spec(spec), lm=lm)


def test_a_graph_agent_is_a_team_member_that_reports_usage_and_closes_its_vector_store() -> None:
    agent = _graph()
    assert isinstance(agent, TeamMember) and not agent.samples and _graph(temperature=0.3).samples
    assert not agent.decides_concurrently  # an in-process fake answers in call order: no threads
    assert agent.llm_usage() is None  # before reset it has asked nothing
    env = envs.make("cwah", episode="test/0", num_agents=2)
    env.reset(seed=0)
    agent.reset("alice", env.agent_info("alice"), 0)
    assert _usage([make_partner("mhp"), agent], ["bob", "alice"]) == {"alice": {
        "llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cache_hits": 0, "llm_seconds": 0,
        "llm_errors": 0, "llm_refused": 0, "llm_fallbacks": 0}}
    _close_members([make_partner("mhp"), agent])  # no vector store: nothing to close

    class Store:
        closed = 0

        def close(self) -> None:
            self.closed += 1

    assert agent.resources is not None and agent.resources.memory is not None
    store = Store()
    agent.resources.memory.vector = store  # type: ignore[assignment]  # stands in for Chroma's client
    _close_members([make_partner("mhp"), agent])
    assert store.closed == 1


def test_the_human_is_a_team_member_that_samples() -> None:
    human = HumanMember(ScriptedSeat())
    assert isinstance(human, TeamMember) and human.samples and not human.decides_concurrently
    assert check_member(human, "cwah").actions["cwah"]  # the seat picks the first option each time


def test_a_forked_member_implements_the_protocol_by_delegating_it(tmp_path: Path) -> None:
    assert "__getattr__" not in vars(ForkedMember)
    start = {"type": "episode_start", "env": "cwah", "episode": "test/0", "agents": ["alice", "bob"]}
    run = RecordedRun(tmp_path / "t.jsonl", [start], {}, start)  # a run with no steps: the world replays nothing
    world = ForkedWorld(envs.make("cwah", episode="test/0", num_agents=2), run, 0, None)
    inner = _graph(temperature=0.5)
    forked = ForkedMember(inner, world, "join")
    assert isinstance(forked, TeamMember)
    assert (forked.name, forked.samples, forked.decides_concurrently) == (inner.name, True, False)
    tracer = object()
    forked.set_tracer(tracer)
    assert inner.tracer is tracer and forked.llm_usage() is None
