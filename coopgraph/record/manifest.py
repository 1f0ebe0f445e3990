"""The run manifest: what produced a trace (versions, spec hashes, seeds, LLM settings without secrets)."""

from __future__ import annotations

import hashlib
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

PACKAGES = ("coopgraph", "langgraph", "langchain-core", "langchain-openai", "dspy", "chromadb", "llama-cpp-python",
            "pettingzoo", "pydantic", "jinja2")


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def manifest(*, specs: dict[str, str | Path] | None = None, llm: dict[str, Any] | None = None,
             seed: int | None = None, **extra: Any) -> dict[str, Any]:
    """A dict for the trace's first event; spec hashes cover the spec file and the files it extends."""
    from coopgraph.graphs.loader import load_spec

    spec_info = {}
    for role, ref in (specs or {}).items():
        loaded = load_spec(ref)
        spec_info[role] = {"name": loaded.spec.name, "file": str(loaded.path), "sha256": file_hash(loaded.path),
                           "sampling": loaded.spec.llm.model_dump(exclude_none=True)}  # its `llm:` block
    return {"versions": versions(), "specs": spec_info, "llm": llm or {}, "seed": seed, **extra}
