"""Scripted partners (each world's experts) made by name, as the worlds registered them.

A world registers its partners beside itself (`coopgraph.envs`), as lazy `"module:attribute"` paths into its own
`experts/` folder, with the worlds each one plays; so a team can be checked against its world, and the partners of
one world listed, without importing any world. C-WAH's `mhp`, `mhp-silent` and `oracle`, TDW-MAT's `rhp` and
`tdw-oracle`, Overcooked's `greedy` and `random` cooks, the Collab games' `collab-planner` and `collab-random`, and
the toyhouse's `toyhouse-expert` (`coopgraph.testing`) are the shipped ones. Each makes a `TeamMember`
(protocol.py) the episode runner can step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from coopgraph.envs.registry import resolve

if TYPE_CHECKING:  # naming partners imports no world and no agent types
    from coopgraph.envs.protocol import TeamMember

PartnerFactory = Callable[..., "TeamMember"]


class UnknownPartnerError(ValueError):
    """A name no world registered as a scripted partner, or a partner asked to play a world it does not play; the
    message lists what exists."""


@dataclass(frozen=True)
class PartnerInfo:
    """A registered partner: how to make it (a callable or a lazy path), with which constructor options, and the
    worlds it plays."""

    name: str
    factory: PartnerFactory | str
    worlds: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def make(self, **options: Any) -> TeamMember:
        """A fresh member; `options` override the registered ones (e.g. `name=` for a display name)."""
        factory = resolve(self.factory) if isinstance(self.factory, str) else self.factory
        return factory(**{**self.options, **options})  # type: ignore[no-any-return]


_PARTNERS: dict[str, PartnerInfo] = {}


def register_partner(name: str, factory: PartnerFactory | str, *, worlds: Iterable[str],
                     options: Mapping[str, Any] | None = None, replace: bool = False) -> None:
    """Register a scripted partner under `name` that plays `worlds` (registered world names), made by `factory`
    (a callable or a lazy `"package.module:attribute"` path) with `options` as its default constructor options.
    A world's first registered partner is its reference one (`partners(world)[0]`)."""
    if name in _PARTNERS and not replace:
        raise ValueError(f"scripted partner {name!r} is already registered (pass replace=True to override)")
    played = tuple(worlds)
    if not played:
        raise ValueError(f"scripted partner {name!r}: name the worlds it plays (worlds=...)")
    _PARTNERS[name] = PartnerInfo(name, factory, played, MappingProxyType(dict(options or {})))


def partners(world: str | None = None) -> list[str]:
    """The registered partners' names: of one world in the order it registered them (its reference partner
    first), or of every world, sorted."""
    if world is None:
        return sorted(_PARTNERS)
    return [name for name, info in _PARTNERS.items() if world in info.worlds]


def partner_info(name: str) -> PartnerInfo:
    """What partner `name` is and plays; the error lists the registered partners."""
    if name not in _PARTNERS:
        raise UnknownPartnerError(f"unknown scripted partner {name!r}; registered: {', '.join(partners())}")
    return _PARTNERS[name]


def make_partner(partner: str, /, *, world: str | None = None, **options: Any) -> TeamMember:
    """A fresh scripted partner; with `world`, refused (naming that world's partners) unless it plays there.
    Other options go to its constructor (e.g. `name=` for a display name)."""
    info = partner_info(partner)
    if world is not None and world not in info.worlds:
        raise UnknownPartnerError(f"scripted partner {partner!r} plays {', '.join(info.worlds)}, not {world}; "
                                  f"{world}'s scripted partners: {', '.join(partners(world)) or '(none)'}")
    return info.make(**options)


__all__ = ["PartnerInfo", "UnknownPartnerError", "make_partner", "partner_info", "partners", "register_partner"]
