"""Package discovery for the folder-per-subpackage layout that pyproject.toml maps.

setuptools' own finder cannot see `graphs/` as `coopgraph.graphs`, so this walks each mapped
folder and names every package under its import name. Everything else lives in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup

ROOTS = {
    "coopgraph": "coopgraph",
    "coopgraph.graphs": "graphs",
    "coopgraph.nodes": "nodes",
    "coopgraph.prompts": "prompts",
    "coopgraph.memory": "memory",
    "coopgraph.envs": "envs",
    "coopgraph.evals": "evals",
}


def mapped_packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        for init in sorted(Path(folder).rglob("__init__.py")):
            rel = init.parent.relative_to(folder).parts
            found.append(".".join((name, *rel)))
    return found


if __name__ == "__main__" or "setuptools.build_meta" in __import__("sys").modules:
    setup(packages=mapped_packages())
