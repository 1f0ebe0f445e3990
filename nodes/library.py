"""Imports every shipped node family so their registrations run; add new families here."""

from coopgraph.nodes import planning, routers, text  # noqa: F401
