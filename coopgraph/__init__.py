"""coopgraph: cooperative embodied LLM agents as declarative LangGraph wirings of one node library.

The Python front door is three functions, imported on first use so `import coopgraph` stays light:

    import coopgraph
    result = coopgraph.run(env="cwah", episode="test/0", team=["mhp", "mhp"])
    branch = coopgraph.fork(result.trace_path, at=20, say="alice:I: Next I will get <pudding> (304).")
    spec = coopgraph.load_spec("coela", env="toyhouse")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coopgraph.api import RunResult, fork, load_spec, run

__all__ = ["RunResult", "fork", "load_spec", "run"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from coopgraph import api

        return getattr(api, name)
    raise AttributeError(f"module 'coopgraph' has no attribute {name!r}")
