"""The embedded model's runtime is an extra: `pip install 'coopgraph[local]'` adds llama-cpp-python and its server.

A user with an API key or a model server never builds llama.cpp, so nothing outside the embedded path imports it;
asking for an embedded profile without the extra fails with one line that says how to get it.
"""

from __future__ import annotations

import importlib.util

from coopgraph.llm.settings import LLMSettingError

#: What `python -m llama_cpp.server` imports that the core install does not already bring.
LOCAL_RUNTIME_MODULES = ("llama_cpp", "fastapi", "sse_starlette", "starlette_context", "uvicorn", "pydantic_settings")
INSTALL_HINT = "pip install 'coopgraph[local]'"


class LocalExtraMissing(LLMSettingError):
    """An embedded profile was asked for, but the `local` extra (llama-cpp-python[server]) is not installed."""


def missing_local_runtime() -> list[str]:
    """The runtime's modules this interpreter cannot import (found without importing them)."""
    return [name for name in LOCAL_RUNTIME_MODULES if importlib.util.find_spec(name) is None]


def require_local_runtime() -> None:
    """Raise `LocalExtraMissing` unless the embedded model's runtime is installed."""
    missing = missing_local_runtime()
    if missing:
        raise LocalExtraMissing(f"the embedded model needs the local extra ({', '.join(missing)} not installed): "
                                f"{INSTALL_HINT}")
