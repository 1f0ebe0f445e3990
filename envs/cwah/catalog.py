"""What a C-WAH house is made of: room types, furniture, goal object classes and where they usually lie.

The placement table is the world's common sense; the episode generator samples from it and planners
may use it as a prior over where an unseen object could be.
"""

from __future__ import annotations

from typing import Literal

ObjectKind = Literal["item", "container", "surface"]

ROOM_TYPES: tuple[str, ...] = ("livingroom", "kitchen", "bedroom", "bathroom")

CONTAINER_CLASSES: frozenset[str] = frozenset(
    {"kitchencabinet", "cabinet", "bathroomcabinet", "fridge", "stove", "dishwasher", "microwave"}
)
SURFACE_CLASSES: frozenset[str] = frozenset(
    {"kitchentable", "kitchencounter", "coffeetable", "sofa", "desk", "nightstand", "bathroomcounter"}
)

# Furniture per room type: (class, fewest, most). Tables are placed near the middle, the rest by walls.
FURNITURE: dict[str, tuple[tuple[str, int, int], ...]] = {
    "kitchen": (
        ("kitchentable", 1, 1),
        ("kitchencounter", 1, 1),
        ("kitchencabinet", 5, 8),
        ("fridge", 1, 2),
        ("stove", 1, 1),
        ("dishwasher", 1, 1),
        ("microwave", 1, 1),
    ),
    "livingroom": (("coffeetable", 1, 1), ("sofa", 1, 1), ("cabinet", 1, 3)),
    "bedroom": (("desk", 1, 1), ("nightstand", 1, 2), ("cabinet", 1, 3)),
    "bathroom": (("bathroomcounter", 1, 1), ("bathroomcabinet", 1, 2)),
}
CENTRAL_FURNITURE: frozenset[str] = frozenset({"kitchentable", "coffeetable"})

# fmt: off
GOAL_CLASSES: tuple[str, ...] = (
    "cupcake", "pudding", "apple", "juice", "wine", "coffeepot", "pancake", "poundcake", "plate", "fork",
)

# Where each goal class starts: furniture class → relative weight.
PLACEMENT: dict[str, dict[str, float]] = {
    "cupcake": {"fridge": 2, "kitchencabinet": 1, "kitchencounter": 1, "coffeetable": 1, "cabinet": 1,
                "desk": 1},
    "pudding": {"fridge": 2, "kitchencabinet": 1, "kitchentable": 1, "coffeetable": 1, "cabinet": 1,
                "desk": 1},
    "apple": {"fridge": 1, "kitchencounter": 1, "kitchentable": 1, "coffeetable": 1, "desk": 1,
              "nightstand": 1},
    "juice": {"fridge": 2, "kitchencabinet": 1, "microwave": 1, "coffeetable": 1, "cabinet": 1,
              "nightstand": 1},
    "wine": {"fridge": 1, "kitchencabinet": 1, "cabinet": 2, "coffeetable": 1, "nightstand": 1,
             "bathroomcabinet": 1},
    "coffeepot": {"stove": 2, "kitchencabinet": 1, "kitchencounter": 1, "cabinet": 1, "microwave": 1},
    "pancake": {"fridge": 1, "stove": 1, "microwave": 1, "kitchencabinet": 1, "coffeetable": 1, "desk": 1},
    "poundcake": {"fridge": 1, "kitchencabinet": 1, "microwave": 1, "coffeetable": 1, "cabinet": 1,
                  "desk": 1},
    "plate": {"kitchencabinet": 2, "dishwasher": 1, "kitchencounter": 1, "coffeetable": 1, "cabinet": 1,
              "desk": 1},
    "fork": {"kitchencabinet": 2, "dishwasher": 1, "kitchencounter": 1, "coffeetable": 1, "nightstand": 1,
             "bathroomcounter": 1},
}

# Classes no task ever asks for: Noisy-C-WAH scatters these.
DUMMY_CLASSES: tuple[str, ...] = (
    "book", "towel", "pillow", "remotecontrol", "mug", "toothbrush", "candle", "cellphone", "folder",
    "sponge", "soap", "vase", "clock", "keyboard", "notebook", "glasses", "hairbrush", "lotion",
    "magazine", "teddybear",
)
# fmt: on

HOME_ROOM: dict[str, str] = {
    furniture: room for room, entries in FURNITURE.items() for furniture, _, _ in entries
}


def kind_of(name: str) -> ObjectKind:
    """Whether a class is an openable container, a surface or a grabbable item."""
    if name in CONTAINER_CLASSES:
        return "container"
    if name in SURFACE_CLASSES:
        return "surface"
    return "item"


def location_prior(object_name: str) -> dict[str, float]:
    """Normalised probability of each furniture class holding `object_name` at the start (empty if none)."""
    weights = PLACEMENT.get(object_name, {})
    total = sum(weights.values())
    return {furniture: w / total for furniture, w in weights.items()} if total else {}


def room_prior(object_name: str) -> dict[str, float]:
    """Normalised probability of each room type holding `object_name` at the start."""
    rooms: dict[str, float] = {}
    for furniture, p in location_prior(object_name).items():
        rooms[HOME_ROOM[furniture]] = rooms.get(HOME_ROOM[furniture], 0.0) + p
    return rooms
