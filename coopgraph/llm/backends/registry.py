"""Backends by name, like worlds and nodes: `register_backend("vllm", "coopgraph.llm.backends.vllm:VLLM")`.

A registration may be a `ChatBackend` or a lazy `"module:attribute"` path, so naming a backend imports nothing
(the OpenAI client, a provider's package) until a setting asks for it. A setting `NAME:MODEL` goes to the backend
registered as NAME; a bare name (`local-coop`) to the backend that owns it (`ChatBackend.bare_names`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coopgraph.llm.backends.base import ChatBackend

_BACKENDS: dict[str, ChatBackend | str] = {}


def register_backend(name: str, backend: ChatBackend | str, *, replace: bool = False) -> None:
    """Register `backend` (or the `"module:attribute"` path of one) under `name`, the prefix of its settings."""
    if name in _BACKENDS and not replace:
        raise ValueError(f"LLM backend {name!r} is already registered (pass replace=True to override)")
    _BACKENDS[name] = backend


def registered_backends() -> list[str]:
    """The registered backend names, in registration order."""
    return list(_BACKENDS)


def backend_named(name: str) -> ChatBackend:
    """The backend registered as `name` (imported now if it was registered lazily)."""
    from coopgraph.llm.settings import LLMSettingError

    if name not in _BACKENDS:
        raise LLMSettingError(f"unknown LLM backend {name!r}; registered: {', '.join(_BACKENDS)}")
    entry = _BACKENDS[name]
    if isinstance(entry, str):
        module_name, _, attribute = entry.partition(":")
        entry = getattr(importlib.import_module(module_name), attribute)
        _BACKENDS[name] = entry
    return entry


def backend_for_setting(setting: str) -> tuple[ChatBackend, str] | None:
    """The backend a setting string names and the model it asks for (what follows `NAME:`, or the bare name)."""
    prefix, colon, model = setting.partition(":")
    if colon and prefix in _BACKENDS:
        return backend_named(prefix), model
    for name in _BACKENDS:
        backend = backend_named(name)
        if setting in backend.bare_names():
            return backend, setting
    return None


def setting_forms() -> list[str]:
    """Every way `--llm` can name a model, for the line an unknown setting prints."""
    return [form for name in _BACKENDS for form in (*backend_named(name).bare_names(), *backend_named(name).forms)]
