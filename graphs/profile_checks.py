"""Checks of a spec against an LLM profile: a distilled model states what it can be asked, the spec must fit.

A distilled planner learned one way of answering (the option's text, no reasoning) and was never taught to
write messages. It does not bend a spec to that: it declares it, and `coopgraph graph validate SPEC --llm
PROFILE` (and every run) reports a spec that asks otherwise, so what a run does is what its spec says.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from coopgraph.graphs.errors import SpecError
from coopgraph.nodes.registry import NODES

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec


def profile_requirements(setting: str) -> dict[str, Any]:
    """What a profile requires of the nodes that ask it (empty for a general model)."""
    from coopgraph.llm.settings import parse_setting

    settings = parse_setting(setting)
    required: dict[str, Any] = {}
    if settings.answer_format is not None:
        required["answer_format"] = settings.answer_format
    if settings.reasoning_chars_max is not None:
        required["reasoning_chars_max"] = settings.reasoning_chars_max
    if not settings.drafts_messages:
        required["drafts_messages"] = False
    return required


def distilled_fits(setting: str) -> str:
    """Which spec and world each distilled profile learned, so a refusal says what would run instead."""
    from coopgraph.llm.model_files import MODEL_FILES

    learned = {name: f for name, f in MODEL_FILES.items() if f.spec is not None}
    if setting not in learned:
        return ""
    planners = ", ".join(f"{name} ({f.spec}, {f.prompt_env})" for name, f in learned.items())
    trained = learned[setting]
    return f"; {setting} learned {trained.spec}'s {trained.prompt_env} prompt; distilled planners: {planners}"


def check_profile(loaded: LoadedSpec, setting: str) -> list[SpecError]:
    """Every node of `loaded` that asks `setting` for something it declares it cannot give (E320-E322)."""
    required = profile_requirements(setting)
    errors: list[SpecError] = []

    def err(code: str, message: str, node_id: str, key: str | None) -> None:
        path: tuple[object, ...] = ("nodes", node_id, "params", key) if key else ("nodes", node_id, "use")
        file, mark = loaded.where(path)
        errors.append(SpecError(code, message, file, mark.line if mark else None, mark.column if mark else None))

    for node_id, node in loaded.spec.nodes.items():
        info = NODES.get(node.use)
        if not info.uses_llm:
            continue
        params = info.params.model_validate(node.params)
        answer_format = getattr(params, "answer_format", None)
        if "answer_format" in required and answer_format not in (None, required["answer_format"]):
            err("E320", f"node {node_id!r} asks for answer_format {answer_format!r}; {setting} answers only with "
                f"{required['answer_format']!r}", node_id, "answer_format")
        reasoning = getattr(params, "reasoning_chars", None)
        if "reasoning_chars_max" in required and reasoning is not None and reasoning > required["reasoning_chars_max"]:
            err("E321", f"node {node_id!r} asks for {reasoning} characters of reasoning; {setting} takes at most "
                f"{required['reasoning_chars_max']}", node_id, "reasoning_chars")
        if required.get("drafts_messages") is False and node.use == "communication.draft_message":
            err("E322", f"node {node_id!r} asks {setting} to draft messages, which it was never taught",
                node_id, None)
    if errors:  # what would run instead, said once
        errors[0] = replace(errors[0], message=errors[0].message + distilled_fits(setting))
    return errors
