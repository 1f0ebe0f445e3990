"""The template check (E312): every variable a node's prompt template reads, the node hands it.

A template's variables are read from its Jinja2 parse (`jinja2.meta.find_undeclared_variables`); one it only
tests with `is defined` (or gives a `default`) is optional. A node hands its template the adapter's
`instructions` (and `options` for a choice), its declared `template_vars`, and the step's facts: the keys the
facts-writing nodes before it add on every path from the entry (the same data flow as the read check). Facts
from the caller (`inputs: [facts]`) or from a node that does not declare its keys may hold anything and are not
checked. Without this, StrictUndefined stops an episode at the node's first call (`'goal' is undefined`).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import TYPE_CHECKING

from jinja2 import meta, nodes

from coopgraph.graphs.errors import SpecError
from coopgraph.graphs.read_checks import arrows, written_before
from coopgraph.nodes.registry import NODES
from coopgraph.nodes.state import RUNNER_KEYS
from coopgraph.prompts.render import PROMPTS_DIR, environment, template_for_env

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec

_ANY = "*"  # a facts key standing for "any key": the facts came from somewhere that does not say


def _tests_defined(test: nodes.Node) -> bool:
    return any(t.name in ("defined", "undefined") for t in (test, *test.find_all(nodes.Test))
               if isinstance(t, nodes.Test))


@cache
def template_reads(filename: str) -> tuple[frozenset[str], frozenset[str]]:
    """(required, optional) variables of a shipped template file. Optional: tested with `is defined` or given a
    `default`, or read only inside an `{% if ... is defined %}` block (`{% if meta_plan is defined %}` guards
    the `plan_status` it shows)."""
    env = environment(str(PROMPTS_DIR))
    source = (PROMPTS_DIR / filename).read_text(encoding="utf-8")
    read = meta.find_undeclared_variables(env.parse(source))
    unguarded = env.parse(source)
    for block in unguarded.find_all(nodes.If):
        if _tests_defined(block.test):
            block.body = []  # what a defined-test guards is read only when the template's caller gave it
    tested = {test.node.name for test in unguarded.find_all(nodes.Test)
              if test.name in ("defined", "undefined") and isinstance(test.node, nodes.Name)}
    tested |= {flt.node.name for flt in unguarded.find_all(nodes.Filter)
               if flt.name in ("default", "d") and isinstance(flt.node, nodes.Name)}
    required = meta.find_undeclared_variables(unguarded) - tested
    return frozenset(required), frozenset(read - required)


def _files(prompt: str, prompt_env: str | None) -> list[str]:
    """The template file the node renders in world `prompt_env` (its own, else the world-neutral one); without a
    world, the world-neutral file, if any: a world's own file is checked when the spec is loaded for that world
    (as every run does), so a spec meant for one world is not refused for another's wording."""
    found = template_for_env(prompt, prompt_env) if prompt_env is not None else \
        (f"{prompt}.j2" if (PROMPTS_DIR / f"{prompt}.j2").is_file() else None)
    return [found] if found else []


def _facts_before(loaded: LoadedSpec, caller_facts: bool, universe: set[str]) -> dict[str, set[str]]:
    """For each reachable node, the facts keys present on every path from the entry to it. Facts from a writer
    that does not say which keys it adds, or from the caller, may hold any key: `_ANY` and every name in
    `universe` (the variables the templates read), so a path through them lacks nothing."""
    spec = loaded.spec
    anything = {_ANY, *universe}
    adds: dict[str, set[str]] = {}
    for node_id, node in spec.nodes.items():
        info = NODES.get(node.use)
        if "facts" not in info.writes:
            adds[node_id] = set()
            continue
        keys = info.facts_added(info.params.model_validate(node.params))
        adds[node_id] = set(anything) if keys is None else set(keys)
    predecessors: dict[str, set[str]] = defaultdict(set)
    successors: dict[str, set[str]] = defaultdict(set)
    for source, target in arrows(spec):
        predecessors[target].add(source)
        successors[source].add(target)
    start = frozenset(anything if caller_facts else set())
    return written_before(spec.entry, adds, predecessors, successors, start)


def check_templates(loaded: LoadedSpec, prompt_env: str | None = None) -> list[SpecError]:
    """One E312 per LLM node whose template reads a variable the node never hands it; with `prompt_env`, the
    file that world renders, else the world-neutral file."""
    spec = loaded.spec
    llm_nodes = {node_id: node for node_id, node in spec.nodes.items() if NODES.get(node.use).uses_llm}
    if not llm_nodes:
        return []
    files = {node_id: _files(node.prompt or NODES.get(node.use).prompt or "", prompt_env)
             for node_id, node in llm_nodes.items()}
    universe = {name for found in files.values() for filename in found for name in template_reads(filename)[0]}
    facts = _facts_before(loaded, "facts" in spec.inputs, universe)
    errors: list[SpecError] = []
    for node_id, node in llm_nodes.items():
        info = NODES.get(node.use)
        if node_id not in facts:
            continue  # unreachable: E305 says so
        given = facts[node_id] if info.template_facts else set()
        if _ANY in given:
            continue
        handed = set(info.template_adds) | set(info.template_vars) | given
        for filename in files[node_id]:  # one file at most
            missing = sorted(template_reads(filename)[0] - handed)
            if missing:
                file, mark = loaded.where(("nodes", node_id, "prompt" if node.prompt else "use"))
                facts_part = (f"the facts every path writes before it ({', '.join(sorted(given)) or 'none'})"
                              if info.template_facts else "no facts")
                others = ", ".join(sorted(handed - given)) or "nothing"
                errors.append(SpecError(
                    "E312", f"node {node_id!r} ({node.use}) renders prompts/{filename}, which reads "
                    f"{', '.join(map(repr, missing))}: never handed to it (it hands its template {others} and "
                    f"{facts_part})", file, mark.line if mark else None, mark.column if mark else None))
    return errors


def caller_inputs(loaded: LoadedSpec) -> list[str]:
    """The spec's `inputs:` an episode's runner does not hand over (it hands the step and the observation)."""
    return [key for key in loaded.spec.inputs if key not in RUNNER_KEYS]


def not_a_member(loaded: LoadedSpec) -> SpecError | None:
    """E313 when the spec needs per-step values from its caller, which no episode's runner hands a team member
    (`graphs/examples/describe_choose.yaml` is driven by `coopgraph demo --toy`, which hands it facts and
    actions); None when it can play an episode."""
    needed = caller_inputs(loaded)
    if not needed:
        return None
    file, mark = loaded.where(("inputs",))
    return SpecError("E313", f"spec {loaded.spec.name!r} is not a team member: it takes {', '.join(needed)} from its "
                     f"caller with each step (inputs:), which an episode's runner does not hand over (it hands the "
                     f"observation and the step)", file, mark.line if mark else None, mark.column if mark else None)
