"""Imports every node family module of this package so their registrations run.

Families are discovered rather than listed, so adding `nodes/<family>.py` is all it takes to ship a node.
"""

import importlib
import pkgutil

import coopgraph.nodes as _package

_SKIP = {"library", "registry", "context", "state", "catalog", "programs", "choice_parsing"}

for _info in pkgutil.iter_modules(_package.__path__):
    if _info.name not in _SKIP and not _info.name.startswith("_"):
        importlib.import_module(f"coopgraph.nodes.{_info.name}")
