"""Imports every shipped node family so their registrations run; add new families here."""

from coopgraph.nodes import (  # noqa: F401
    communication,
    execution,
    perception,
    planning,
    retrieval,
    routers,
    text,
)
