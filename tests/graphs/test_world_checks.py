"""A spec is checked against a world before an episode: missing capabilities (E310) and templates (E311)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.envs import UnknownEnvironmentError, register_kit, registry
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec, shipped_specs
from coopgraph.nodes.registry import NODES, node


def _needs_look_values(state: dict, ctx: object) -> dict:
    """A node that reads the world's look values (registered by this test)."""
    return {}


@pytest.fixture(autouse=True)
def test_registrations() -> Iterator[None]:
    """A bare world (core belief only, no templates of its own) and a node needing look values, for these
    tests only: the node catalogue must not see them."""
    register_kit("bare-test-world", "coopgraph.envs.cwah.kit:make_kit", capabilities=(),
                 prompt_env="bare-test-world")
    node("testing.needs_look_values", writes=("facts",), requires={"look_values", "rooms"})(_needs_look_values)
    yield
    registry._KITS.pop("bare-test-world")
    NODES.entries.pop("testing.needs_look_values")


SPEC = """\
name: needs-values
entry: first
nodes:
  first:
    use: testing.needs_look_values
  choose:
    use: planning.choose_action
edges:
  - first -> choose -> END
inputs: [actions]
"""


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "needs_values.yaml"
    path.write_text(SPEC)
    return path


#: LLM-Co's wirings play LLM-Co's worlds only (they need the `layout` capability and those worlds' prompts).
KITCHEN_ONLY = tuple(name for name in shipped_specs() if name.startswith("llmco"))


def test_every_shipped_spec_fits_cwah_but_llmcos_which_fit_overcooked() -> None:
    for name in shipped_specs():
        if name not in KITCHEN_ONLY:
            load_spec(name, env="cwah")  # raises SpecInvalid with every problem
    for name in KITCHEN_ONLY:
        load_spec(name, env="overcooked")
        with pytest.raises(SpecInvalid, match=r"E310 .*'layout'.*worlds that have it: collab-capture, "
                                              r"collab-escape, overcooked"):
            load_spec(name, env="cwah")


def test_missing_capability_names_node_capability_and_worlds_with_line(spec_file: Path) -> None:
    with pytest.raises(SpecInvalid) as caught:
        load_spec(spec_file, env="bare-test-world")
    e310 = [e for e in caught.value.errors if e.code == "E310"]
    assert [e.line for e in e310] == [5, 5]  # the `use:` line of node `first`
    assert "node 'first' (testing.needs_look_values) needs capability 'look_values'" in e310[0].message
    assert "worlds that have it: cwah, cwah-noisy" in e310[0].message
    assert "'rooms'" in e310[1].message
    assert "run the spec in a world that has the capability" in e310[0].hint


def test_missing_template_names_the_files_tried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prompts = tmp_path / "prompts"
    (prompts / "planning").mkdir(parents=True)
    (prompts / "planning" / "choose_action.cwah.j2").write_text("{% block system %}{% endblock %}")
    monkeypatch.setattr("coopgraph.prompts.render.PROMPTS_DIR", prompts)  # only a C-WAH template ships
    spec = tmp_path / "choose.yaml"
    spec.write_text("name: choose\nentry: choose\nnodes:\n  choose:\n    use: planning.choose_action\n"
                    "edges:\n  - choose -> END\ninputs: [facts, actions]\n")
    load_spec(spec, env="cwah")
    with pytest.raises(SpecInvalid) as caught:
        load_spec(spec, env="bare-test-world")
    [e311] = caught.value.errors
    assert e311.code == "E311" and e311.line == 5
    assert "planning/choose_action.bare-test-world.j2" in e311.message
    assert "worlds that have it: cwah, cwah-noisy" in e311.message


def test_registered_requirements_are_declared_on_the_node() -> None:
    assert NODES.get("testing.needs_look_values").requires == frozenset({"look_values", "rooms"})


def test_unknown_capability_is_refused_at_registration() -> None:
    with pytest.raises(ValueError, match="unknown capabilities \\['teleport'\\]"):
        node("testing.teleport", requires={"teleport"})


def test_unknown_world_lists_the_worlds_with_kits() -> None:
    with pytest.raises(UnknownEnvironmentError, match="kits exist for: .*cwah"):
        load_spec("coela", env="atlantis")


def test_cli_validate_env_reports_coded_error_without_traceback(spec_file: Path) -> None:
    result = CliRunner().invoke(app, ["graph", "validate", str(spec_file), "--env", "bare-test-world"])
    assert result.exit_code == 1
    assert "E310" in result.output and "Traceback" not in result.output
    ok = CliRunner().invoke(app, ["graph", "validate", "capo", "--env", "cwah"])
    assert ok.exit_code == 0, ok.output
    unknown = CliRunner().invoke(app, ["graph", "validate", "capo", "--env", "atlantis"])
    assert unknown.exit_code == 2 and "kits exist for" in unknown.output


def test_toyhouse_serves_the_shipped_methods_but_not_a_node_needing_look_values(spec_file: Path) -> None:
    runner = CliRunner()
    for world in ("toyhouse", "cwah"):
        ok = runner.invoke(app, ["graph", "validate", "graphs/capo.yaml", "--env", world])
        assert ok.exit_code == 0, ok.output
    refused = runner.invoke(app, ["graph", "validate", str(spec_file), "--env", "toyhouse"])
    assert refused.exit_code == 1
    assert "E310 node 'first' (testing.needs_look_values) needs capability 'look_values', which world " \
           "'toyhouse' lacks; worlds that have it: cwah, cwah-noisy" in " ".join(refused.output.split())
