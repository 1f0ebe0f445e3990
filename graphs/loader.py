"""Loading a spec file: resolve `extends:`, validate the schema, then check the wiring.

Everything wrong with a spec is reported in one go, each problem with file, line and column,
so a user fixes a spec in one pass instead of one error per run.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from coopgraph.graphs.errors import SpecError, SpecInvalid
from coopgraph.graphs.renamed_names import rename_old_names, show
from coopgraph.graphs.spec import GraphSpec
from coopgraph.graphs.yaml_source import Mark, YamlProblem, decode_text, load_source

GRAPHS_DIR = Path(__file__).parent
SHIPPED_FOLDERS = ("", "variants", "ablations", "examples")


def shipped_specs() -> dict[str, Path]:
    """Specs that ship with coopgraph, by the short name a team or CLI may use."""
    found: dict[str, Path] = {}
    for folder in SHIPPED_FOLDERS:
        for path in sorted((GRAPHS_DIR / folder).glob("*.yaml")):
            found.setdefault(path.stem, path)
    return found


def resolve_path(ref: str, relative_to: Path | None = None) -> Path:
    """A spec reference is a file path, or the name of a shipped spec (`coela`)."""
    candidates = []
    if relative_to is not None:
        candidates.append(relative_to / ref)
    candidates.append(Path(ref))
    for candidate in candidates:
        try:
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte in it
            continue
    shipped = shipped_specs()
    name = Path(ref).stem if ref.endswith((".yaml", ".yml")) and "/" not in ref else ref
    if name in shipped:
        return shipped[name]
    raise SpecInvalid([SpecError(
        "E100", f"no spec {ref!r} (shipped: {', '.join(shipped) or 'none'})", str(relative_to or "."),
    )])


@dataclass
class LoadedSpec:
    """A validated spec plus where it came from, so errors and relative paths can be resolved."""

    spec: GraphSpec
    path: Path
    marks: dict[tuple, tuple[str, Mark]]
    warnings: list[SpecError] = dataclass_field(default_factory=list)  # W codes: what loads but should be written anew

    def where(self, path: tuple) -> tuple[str, Mark | None]:
        return _where(self.marks, path, self.path)


def _merge_nodes(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for node_id, override in child.items():
        if override is None:
            merged.pop(node_id, None)
        elif isinstance(override, dict) and isinstance(merged.get(node_id), dict):
            node = merged[node_id]
            for key, value in override.items():
                if key == "params" and isinstance(value, dict) and isinstance(node.get("params"), dict):
                    node["params"] = {**node["params"], **value}
                else:
                    node[key] = value
        else:
            merged[node_id] = override
    return merged


def _type_name(value: Any) -> str:
    return {type(None): "null", dict: "a mapping", list: "a list", str: "text"}.get(type(value), type(value).__name__)


def _splice(edge: Any, removed: list[str]) -> Any:
    """Drop removed nodes from a chain edge (`a -> x -> b` becomes `a -> b`), so an ablation can delete a
    node in one line; router edges are left for the validator to judge."""
    if not isinstance(edge, str):
        return edge
    parts = [p.strip() for p in edge.split("->")]
    return " -> ".join(p for p in parts if p not in removed)


def base_chain(ref: str) -> list[Path]:
    """The files a spec is built from, itself first, then each base its `extends:` names in turn (a base that
    cannot be read ends the chain: loading the spec reports it). Result stores hash every file of the chain, so a
    change in a base spec reruns the variants built on it."""
    chain = [resolve_path(ref)]
    while True:
        try:
            doc = load_source(decode_text(chain[-1].read_bytes()))
            base_ref = doc.data.get("extends") if isinstance(doc.data, dict) else None
            if not isinstance(base_ref, str) or not base_ref:
                return chain
            base = resolve_path(base_ref, chain[-1].parent)
        except (OSError, YamlProblem, SpecInvalid):
            return chain
        if base.resolve() in [p.resolve() for p in chain]:
            return chain
        chain.append(base)


def _read_raw(path: Path, chain: list[Path]) -> tuple[dict[str, Any], dict[tuple, tuple[str, Mark]]]:
    """Raw data of a spec with its bases merged in, and the file/mark of every path."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecInvalid([SpecError("E100", f"cannot read spec: {exc.strerror}", str(path))]) from None
    try:
        doc = load_source(decode_text(raw))
    except YamlProblem as problem:
        mark = problem.mark
        raise SpecInvalid([SpecError(
            problem.code, problem.message, str(path), mark.line if mark else None, mark.column if mark else None
        )]) from None
    if not isinstance(doc.data, dict):
        raise SpecInvalid([SpecError("E201", "a spec must be a mapping of fields", str(path), 1, 1)])
    marks = {p: (str(path), m) for p, m in doc.marks.items()}
    data = doc.data
    base_ref = data.get("extends")
    if not base_ref:
        return data, marks
    file, mark = marks.get(("extends",), (str(path), None))
    if not isinstance(base_ref, str):
        raise SpecInvalid([SpecError("E209", f"extends: must name one spec (a shipped name or a path), not "
                                     f"{_type_name(base_ref)}", file, mark.line if mark else None,
                                     mark.column if mark else None)])
    try:
        base_path = resolve_path(str(base_ref), path.parent)
    except SpecInvalid as exc:
        err = exc.errors[0]
        raise SpecInvalid([SpecError("E209", err.message, file, mark.line if mark else None,
                                     mark.column if mark else None)]) from None
    if base_path.resolve() in [p.resolve() for p in chain]:
        names = " -> ".join(p.name for p in [*chain, base_path])
        raise SpecInvalid([SpecError("E209", f"extends cycle: {names}", file,
                                     mark.line if mark else None, mark.column if mark else None)])
    base, base_marks = _read_raw(base_path, [*chain, base_path])
    for source, source_marks in ((data, marks), (base, base_marks)):
        for field in ("params", "nodes", "agent"):
            if field in source and not isinstance(source[field], dict):
                file, mark = source_marks.get((field,), (str(path), None))
                empty = f" (an empty `{field}:` is null: write `{field}: {{}}` or remove the line)" \
                    if source[field] is None else ""
                raise SpecInvalid([SpecError(
                    "E201", f"{field}: must be a mapping, not {_type_name(source[field])}{empty}", file,
                    mark.line if mark else None, mark.column if mark else None)])
    merged = {**base, **{k: v for k, v in data.items() if k not in ("nodes", "params", "agent")}}
    merged["params"] = {**base.get("params", {}), **data.get("params", {})}
    if "agent" in base or "agent" in data:
        merged["agent"] = {**base.get("agent", {}), **data.get("agent", {})}
    merged["nodes"] = _merge_nodes(base.get("nodes", {}), data.get("nodes", {}))
    removed = [n for n, v in (data.get("nodes") or {}).items() if v is None]
    if removed and "edges" not in data and isinstance(base.get("edges"), list):
        merged["edges"] = [_splice(edge, removed) for edge in base["edges"]]
    merged_marks = {**base_marks, **marks}
    return merged, merged_marks


def _substitute(value: Any, params: dict[str, Any], missing: list[tuple[tuple, str]], path: tuple = (),
                used: set[str] | None = None) -> Any:
    """Replace "${name}" strings in node params by the spec-level param of that name (noted in `used`)."""
    if isinstance(value, str) and value.startswith("${") and value.endswith("}"):
        key = value[2:-1]
        if key in params:
            if used is not None:
                used.add(key)
            return params[key]
        missing.append((path, key))
        return value
    if isinstance(value, dict):
        return {k: _substitute(v, params, missing, (*path, k), used) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, params, missing, (*path, i), used) for i, v in enumerate(value)]
    return value


def _unused_params(params: dict[str, Any], used: set[str], marks: dict[tuple, tuple[str, Mark]],
                   path: Path) -> list[SpecError]:
    """E206 for each spec-level param this file declares that no node refers to as `${name}`: a misspelt or
    misplaced key (an `agent:` setting under `params:`) would otherwise change nothing, silently. A param the
    file inherits is left alone (an ablation may remove the node that took it)."""
    from coopgraph.graphs.spec import AgentSettings

    taken = [*sorted(used), *(f"agent: {name}" for name in AgentSettings.model_fields)]
    errors = []
    for key in params:
        file, mark = _where(marks, ("params", key), path)
        if key in used or file != str(path):
            continue
        close = difflib.get_close_matches(str(key), taken, n=3, cutoff=0.6)
        close += [name for name in taken if name == f"agent: {key}" and name not in close]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        errors.append(SpecError("E206", f"spec param {key!r} is taken by no node (no node's params say "
                                f"${{{key}}}){hint} (params its nodes take: {', '.join(sorted(used)) or 'none'})",
                                file, mark.line if mark else None, mark.column if mark else None))
    return errors


def load_spec(ref: str | Path, *, check: bool = True, env: str | None = None, llm: str | None = None,
              member: bool = False) -> LoadedSpec:
    """Load, merge, validate and (by default) check a spec; raise SpecInvalid listing every problem.

    Old registry names are rewritten to the current ones, each with a W202 warning (in `LoadedSpec.warnings`
    and through Python's `warnings`).

    With `env`, also check it against that world's kit: the capabilities its nodes require and the prompt
    templates they render (an unknown world raises `UnknownEnvironmentError` listing the known ones). With
    `llm`, also check it against what that LLM profile declares it can be asked (E320-E322). Every LLM node's
    template must read only what the node hands it (E312). With `member`, the spec is to play an episode as
    a team member, whose runner hands it no `inputs:` (E313)."""
    path = ref if isinstance(ref, Path) else resolve_path(str(ref))
    data, marks = _read_raw(path, [path])
    errors: list[SpecError] = []
    params = data.get("params", {}) if isinstance(data.get("params"), dict) else {}
    used: set[str] = set()
    for node_id, node in (data.get("nodes") or {}).items() if isinstance(data.get("nodes"), dict) else []:
        if isinstance(node, dict) and "params" in node:
            missing: list[tuple[tuple, str]] = []
            node["params"] = _substitute(node["params"], params, missing, ("nodes", node_id, "params"), used)
            for where, key in missing:
                file, mark = _where(marks, where, path)
                errors.append(SpecError("E205", f"node {node_id!r} refers to undeclared param ${{{key}}}", file,
                                        mark.line if mark else None, mark.column if mark else None))
    errors.extend(_unused_params(params, used, marks, path))
    data.setdefault("name", path.stem)
    try:
        spec = GraphSpec.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = tuple(err["loc"])
            loc = tuple(x for x in loc if not (isinstance(x, str) and x in ("str", "RouterEdge")))
            file, mark = _where(marks, loc, path)
            field = ".".join(str(x) for x in loc) or "spec"
            message = _unknown_key(loc) if err["type"] == "extra_forbidden" else err["msg"]
            errors.append(SpecError("E201", f"{field}: {message}", file,
                                    mark.line if mark else None, mark.column if mark else None))
        raise SpecInvalid(errors) from None
    loaded = LoadedSpec(spec, path, marks)
    loaded.warnings = rename_old_names(loaded)
    show(loaded.warnings)
    if check:
        from coopgraph.graphs.checks import check_spec
        from coopgraph.graphs.template_checks import check_templates, not_a_member

        if member and (refused := not_a_member(loaded)):
            raise SpecInvalid([refused])
        errors.extend(check_spec(loaded))
        if env is not None and not errors:
            from coopgraph.envs.registry import kit_info
            from coopgraph.graphs.world_checks import check_world

            errors.extend(check_world(loaded, env))
            if not errors:
                errors.extend(check_templates(loaded, kit_info(env).prompt_env))
        elif not errors:
            errors.extend(check_templates(loaded))
        if llm is not None and not errors:
            from coopgraph.graphs.profile_checks import check_profile

            errors.extend(check_profile(loaded, llm))
    if errors:
        raise SpecInvalid(errors)
    return loaded


def _unknown_key(loc: tuple) -> str:
    """A key the schema does not take (`llm: {tmperature: ...}`), with the closest keys it does take there."""
    from coopgraph.graphs.spec import AgentSettings, LLMSampling, NodeSpec, RouterEdge
    from coopgraph.nodes.registry import unknown_name_message

    models: dict[tuple, type[BaseModel]] = {(): GraphSpec, ("llm",): LLMSampling, ("agent",): AgentSettings,
                                            ("nodes",): NodeSpec, ("edges",): RouterEdge}
    where = loc[:-1] if loc[:1] not in (("nodes",), ("edges",)) else loc[:1]
    model = models.get(where)
    if model is None:
        return "unknown key"
    known = [field.alias or name for name, field in model.model_fields.items()]
    return unknown_name_message("key", str(loc[-1]), known)


def _where(marks: dict[tuple, tuple[str, Mark]], loc: tuple, path: Path) -> tuple[str, Mark | None]:
    for cut in range(len(loc), -1, -1):
        if loc[:cut] in marks:
            return marks[loc[:cut]]
    return str(path), None
