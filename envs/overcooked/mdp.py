"""overcooked-ai 1.1.0's gridworld with the paper's rules, walls and gates: a subclass, the package is untouched.

The paper (LLM-Co, on the old Overcooked dynamics) plays three-onion soups only: the third onion starts the pot
cooking at once, a soup is ready 20 ticks later and scores 20 when served. 1.1.0's newer rules would let an
empty-handed interact cook a one-onion soup and score it, so here that interact does nothing and the only order is
three onions. Overcooked-Assist's `W` walls are neither walkable nor usable; a `G` gate opens when an empty-handed
cook interacts with it (in the interact phase, so the partner may step in that same tick), is walkable while open,
and closes once it has been open `GATE_OPEN_TICKS` ticks and nobody stands in it; the timer pauses while it is
occupied. Gate state lives in the episode's state (`KitchenState.gates`), never on the gridworld.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs.overcooked.kitchen import Kitchen
from coopgraph.envs.overcooked.layouts import Cell, Layout
from coopgraph.envs.overcooked.upstream import Action, OvercookedGridworld, OvercookedState

ONION_SOUP = {"ingredients": ["onion", "onion", "onion"]}
COOK_TICKS = 20
ONIONS_FOR_SOUP = 3  # the old rules: the third onion starts the soup
SOUP_POINTS = 20
GATE_OPEN_TICKS = 10
#: The recipe configuration every kitchen uses (overcooked-ai keeps it process-wide on `Recipe`).
RULES: dict[str, Any] = {"start_all_orders": [ONION_SOUP], "num_items_for_soup": ONIONS_FOR_SOUP,
                         "cook_time": COOK_TICKS, "delivery_reward": SOUP_POINTS}


class KitchenState(OvercookedState):
    """An `OvercookedState` that also knows its gates: cell → ticks open so far, or None when closed."""

    def __init__(self, players: Any, objects: Any, gates: dict[Cell, int | None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(players, objects, **kwargs)
        self.gates: dict[Cell, int | None] = dict(gates or {})

    @property
    def open_gates(self) -> frozenset[Cell]:
        return frozenset(cell for cell, timer in self.gates.items() if timer is not None)

    def deepcopy(self) -> KitchenState:
        return KitchenState(
            players=[player.deepcopy() for player in self.players],
            objects={pos: obj.deepcopy() for pos, obj in self.objects.items()},
            bonus_orders=[order.to_dict() for order in self.bonus_orders],
            all_orders=[order.to_dict() for order in self.all_orders],
            timestep=self.timestep, gates=self.gates)

    def time_independent_equal(self, other: object) -> bool:
        return super().time_independent_equal(other) and self.gates == getattr(other, "gates", None)

    def __hash__(self) -> int:
        return hash((super().__hash__(), tuple(sorted(self.gates.items(), key=lambda kv: kv[0]))))


class KitchenGridworld(OvercookedGridworld):
    """The gridworld of one layout under the paper's rules, with walls and gates; built from a checked `Layout`
    (1.1.0's `from_grid` would reject `W` and `G` cells by class name, so it is not used)."""

    def __init__(self, layout: Layout) -> None:
        super().__init__(terrain=[list(row) for row in layout.terrain], start_player_positions=list(layout.starts),
                         layout_name=layout.name, **RULES)
        self.kitchen = Kitchen.from_layout(layout)
        self.gate_cells: tuple[Cell, ...] = self.kitchen.places["g"]

    def configure_rules(self) -> None:
        """Set overcooked-ai's process-wide recipe configuration to this world's rules again."""
        self._configure_recipes(**RULES)

    def get_standard_start_state(self) -> KitchenState:
        state = KitchenState.from_player_positions(self.start_player_positions, bonus_orders=[],
                                                   all_orders=self.start_all_orders)
        state.gates = dict.fromkeys(self.gate_cells)
        return state

    # ---------------------------------------------------------------------------------- interact phase
    def resolve_interacts(self, new_state: KitchenState, joint_action: Any, events_infos: Any) -> Any:
        """Gates open first, then the package's interactions, then a pot given its third onion starts cooking."""
        for player, action in zip(new_state.players, joint_action, strict=True):
            if action != Action.INTERACT or player.has_object():
                continue
            faced = Action.move_in_direction(player.position, player.orientation)
            if faced in new_state.gates and new_state.gates[faced] is None:
                new_state.gates[faced] = 0
        rewards = super().resolve_interacts(new_state, joint_action, events_infos)
        for pot in self.get_pot_locations():
            soup = new_state.objects.get(pot)
            if soup is not None and soup.is_idle and len(soup.ingredients) == self.recipe_config["num_items_for_soup"]:
                soup.begin_cooking()
        return rewards

    def soup_to_be_cooked_at_location(self, state: Any, pos: Cell) -> bool:
        """Never: under the old rules an empty-handed interact with a pot does nothing (the third onion cooks)."""
        return False

    # ---------------------------------------------------------------------------------- movement and effects
    def resolve_movement(self, state: KitchenState, joint_action: Any) -> None:
        """The package's movement, with open gates walkable."""
        open_gates = state.open_gates
        moves = [self._move(p.position, p.orientation, a, open_gates) for p, a in zip(state.players, joint_action,
                                                                                        strict=True)]
        old = tuple(p.position for p in state.players)
        positions = self._handle_collisions(old, tuple(m[0] for m in moves))
        for player, position, (_, orientation) in zip(state.players, positions, moves, strict=True):
            player.update_pos_and_or(position, orientation)

    def _move(self, position: Cell, orientation: Cell, action: Any, open_gates: frozenset[Cell]
              ) -> tuple[Cell, Cell]:
        if action not in Action.MOTION_ACTIONS or action == Action.STAY:
            return position, orientation
        target = Action.move_in_direction(position, action)
        return (target if self.kitchen.walkable(target, open_gates) else position), action

    def step_environment_effects(self, state: KitchenState) -> None:
        """Cook (the package's), then age the gates: an empty open gate ticks on and closes once its time is up."""
        super().step_environment_effects(state)
        occupied = set(state.player_positions)
        for cell, timer in state.gates.items():
            if timer is None or cell in occupied:
                continue
            state.gates[cell] = None if timer >= GATE_OPEN_TICKS else timer + 1

    def _check_valid_state(self, state: KitchenState) -> None:
        """Players stand on floor or in an open gate (the package's check knows only floor)."""
        open_gates: frozenset[Cell] = getattr(state, "open_gates", frozenset())
        for player in state.players:
            assert self.kitchen.walkable(player.position, open_gates), f"a player stands on {player.position}"
