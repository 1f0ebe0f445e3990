"""Prompt rendering: Jinja2 in its sandbox with StrictUndefined, one template per node and environment.

A template defines a `system` block (stable text: instructions, rules) and a `user` block (goal
first, fast-changing state and options last) so a server's prefix cache reuses as much as it can; optional
`opening` and `opening_reply` blocks add a first user turn and the model's reply to it before the question.
Partner messages reach templates as plain data: the sandbox forbids attribute tricks and
autoescaping is off because prompts are not HTML.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined, TemplateNotFound
from jinja2.sandbox import ImmutableSandboxedEnvironment

from coopgraph.llm.constraints import letter

PROMPTS_DIR = Path(__file__).parent
#: A template's blocks in the order they become chat turns, and each turn's role. `system` and `user` are required;
#: `opening` and `opening_reply` are an optional first exchange before the question (LLM-Co briefs the model with
#: the game and the layout, and the model's turn acknowledges it, before each state is asked about).
TURNS: tuple[tuple[str, str], ...] = (("system", "system"), ("opening", "user"), ("opening_reply", "assistant"),
                                       ("user", "user"))
OPENING = frozenset({"opening", "opening_reply"})


class PromptError(LookupError):
    """A template is missing or lacks a required block."""


@lru_cache(maxsize=8)
def environment(root: str) -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        loader=FileSystemLoader(root),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["letter"] = letter
    return env


def available() -> list[str]:
    """Every template name shipped, as a spec writes it (`planning/choose_action`)."""
    return sorted(
        str(p.relative_to(PROMPTS_DIR).with_suffix("")).split(".")[0] for p in PROMPTS_DIR.rglob("*.j2")
    )


def template_exists(name: str) -> bool:
    """True when a generic or any environment-specific template of that name ships."""
    return (PROMPTS_DIR / f"{name}.j2").is_file() or any(PROMPTS_DIR.glob(f"{name}.*.j2"))


def template_for_env(name: str, env_name: str) -> str | None:
    """The file a world would render for `family/node`: its own, else the generic one, else None."""
    for candidate in (f"{name}.{env_name}.j2", f"{name}.j2"):
        if (PROMPTS_DIR / candidate).is_file():
            return candidate
    return None


def template_file(name: str, env_name: str | None = None) -> str:
    """Resolve `family/node` to the environment's own file when one exists, else the generic one."""
    candidates = ([f"{name}.{env_name}.j2"] if env_name else []) + [f"{name}.j2"]
    for candidate in candidates:
        if (PROMPTS_DIR / candidate).is_file():
            return candidate
    known = ", ".join(sorted(set(available()))) or "none"
    raise PromptError(f"no prompt template {name!r} (tried {', '.join(candidates)}; known: {known})")


def render_messages(name: str, variables: dict[str, Any], env_name: str | None = None) -> list[dict[str, str]]:
    """Render a template's `system` and `user` blocks into chat messages."""
    filename = template_file(name, env_name)
    try:
        template = environment(str(PROMPTS_DIR)).get_template(filename)
    except TemplateNotFound as exc:  # pragma: no cover - template_file already checked
        raise PromptError(str(exc)) from exc
    messages = []
    for block, role in TURNS:
        if block not in template.blocks:
            if block in OPENING:
                continue
            raise PromptError(f"prompt template {filename} has no {{% block {block} %}}")
        context = template.new_context(dict(variables))
        text = "".join(template.blocks[block](context)).strip()
        if text:
            messages.append({"role": role, "content": text})
    return messages
