"""Imports every node family module (`coopgraph.nodes.families`) so their registrations run.

Families are discovered rather than listed, so adding `nodes/families/<family>.py` is all it takes to ship a node;
helpers live beside this module, outside the families package, so nothing has to be skipped.
"""

import importlib
import pkgutil

import coopgraph.nodes.families as _families

for _info in pkgutil.iter_modules(_families.__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{_families.__name__}.{_info.name}")
