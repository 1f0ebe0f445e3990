"""C-WAH annotates its options: distance, cost, value, claims, surplus, detour and notes, from the belief.

Each field is checked against the belief's own rule it must agree with (walking distance, MHP's look ranking,
`look_before_put`, `announced_grabs`, `open_needs`), on a hand-made state and then at every decision MHP makes
in real test episodes.
"""

from __future__ import annotations

import math

import pytest

from coopgraph.envs import make
from coopgraph.envs.capabilities import Objects, Spatial
from coopgraph.envs.cwah import CWAHAffordances, CWAHBelief
from coopgraph.envs.cwah.annotate import annotate, my_distance, target_place
from coopgraph.envs.cwah.belief import KnownObject, PartnerIntent
from coopgraph.envs.cwah.catalog import HOME_ROOM
from coopgraph.envs.cwah.estimates import PARTNER_RECENT_STEPS, steps_per_find
from coopgraph.envs.cwah.experts.mhp import MHPAgent
from coopgraph.envs.protocol import Affordance, AffordanceGroup, PartnerClaim
from coopgraph.runtime.episode_loop import run_episode


def _belief(episode: str = "test/0", agents: int = 2) -> tuple[CWAHBelief, list[Affordance]]:
    env = make("cwah", episode=episode, num_agents=agents)
    observations, _ = env.reset(seed=0)
    belief = CWAHBelief("alice", env.agent_info("alice"))
    belief.update(observations["alice"])
    return belief, CWAHAffordances().available(belief)


def _option(belief: CWAHBelief, text: str) -> Affordance:
    return next(o for o in CWAHAffordances().available(belief) if o.text == text)


def test_the_belief_offers_the_spatial_and_objects_capabilities_from_its_config() -> None:
    belief, _ = _belief()
    assert isinstance(belief, Spatial) and isinstance(belief, Objects)
    assert (belief.walk_speed, belief.reach, belief.hands) == (
        belief.config.walk_speed, belief.config.reach, belief.config.hands)
    kitchen = next(r for r in belief.rooms.values() if r.id != belief.room_id)
    metres = belief.walk_distance(belief.position, belief.room_id, None, kitchen.id)
    assert metres == belief.floor.distance(belief.position, belief.room_id, kitchen.center, kitchen.id)
    assert metres > math.dist(belief.position, kitchen.center)  # through the door, not through the wall
    assert belief.distance(None, kitchen.id) == metres and belief.distance(None, None) == math.inf
    assert belief.walk_distance(None, None, kitchen.center, kitchen.id) == math.inf
    assert belief.point_along(belief.position, belief.room_id, kitchen.center, kitchen.id, 0.0) == (
        belief.position, belief.room_id)
    assert belief.point_along(belief.position, belief.room_id, kitchen.center, kitchen.id, metres + 1) == (
        kitchen.center, kitchen.id)
    halfway, _ = belief.point_along(belief.position, belief.room_id, kitchen.center, kitchen.id, metres / 2)
    assert belief.walk_distance(halfway, None, kitchen.center, None) < metres  # on the way there


def test_every_option_but_a_message_carries_its_group_distance_and_cost() -> None:
    belief, _ = _belief()
    options = CWAHAffordances().available(belief, message="hello")
    assert options[0].group == AffordanceGroup.COMMUNICATE and options[0].distance is None
    groups = {"goput": AffordanceGroup.DELIVER, "gograb": AffordanceGroup.FETCH,
              "gocheck": AffordanceGroup.INSPECT, "goexplore": AffordanceGroup.EXPLORE}
    for option in options[1:]:
        assert option.group == groups[option.kind]
        pos, room = target_place(belief, option)
        assert option.distance == belief.walk_distance(belief.position, belief.room_id, pos, room)
        expected = belief.distance(None, option.target_id) if option.kind == "goexplore" else belief.distance_to(
            belief.objects[option.target_id])  # type: ignore[index]
        assert option.distance == expected == my_distance(belief, option)
        extra = 1.0 if option.kind == "gocheck" else 0.0  # a check also opens the container
        assert option.cost == pytest.approx(option.distance / belief.walk_speed + extra)


def test_looks_ordered_by_cost_per_value_are_mhps_ranking_and_nothing_else_has_a_value() -> None:
    for episode in ("test/0", "test/1", "test/2"):
        belief, options = _belief(episode)
        looks = [o for o in options if o.value is not None]
        assert {o.group for o in looks} == {AffordanceGroup.INSPECT, AffordanceGroup.EXPLORE}
        assert all(o.value is None for o in options if o.group not in (AffordanceGroup.INSPECT,
                                                                       AffordanceGroup.EXPLORE))
        ordered = sorted(looks, key=lambda o: steps_per_find(o.cost, o.value))  # type: ignore[arg-type]
        assert [o.text for o in ordered] == [o.text for o in belief.ranked_looks(options)]


def test_a_free_handed_partner_standing_nearer_claims_a_grab_and_one_with_full_hands_only_a_check() -> None:
    belief, options = _belief()
    grab = next(o for o in options if o.kind == "gograb")
    assert not grab.claims
    bob = belief.partners["bob"]
    target = belief.objects[grab.target_id]  # type: ignore[index]
    bob.position, bob.room_id, bob.last_seen_step = target.position, target.room_id, belief.step
    assert _option(belief, grab.text).claims == (PartnerClaim(partner="Bob", reason="nearer"),)
    assert _option(belief, grab.text).claimed_by == "Bob"
    bob.last_seen_step = belief.step - 1  # not seen this step: where it stands now is unknown
    assert not _option(belief, grab.text).claims
    bob.last_seen_step, bob.holding = belief.step, [9001, 9002]  # hands full: it cannot take the object first
    assert not _option(belief, grab.text).claims
    check = next(o for o in options if o.kind == "gocheck")
    container = belief.objects[check.target_id]  # type: ignore[index]
    bob.position, bob.room_id = container.position, container.room_id
    assert _option(belief, check.text).claims == (PartnerClaim(partner="Bob", reason="nearer"),)


def test_every_claim_that_holds_is_listed_nearer_then_announced_then_nearby() -> None:
    belief, options = _belief()
    grab = next(o for o in options if o.kind == "gograb")
    target = belief.objects[grab.target_id]  # type: ignore[index]
    belief.objects[target.id] = target.model_copy(update={"room_id": next(r for r in belief.rooms
                                                                           if r != belief.room_id)})
    bob = belief.partners["bob"]
    bob.position, bob.room_id, bob.last_seen_step = target.position, belief.objects[target.id].room_id, belief.step
    belief.partner_intents["bob"] = PartnerIntent(kind="gograb", target_id=target.id, step=belief.step)
    claims = _option(belief, grab.text).claims
    assert [c.reason for c in claims] == ["nearer", "announced", "nearby"] and {c.partner for c in claims} == {"Bob"}
    assert [c.text for c in claims] == ["Bob nearer", "Bob going for it", "Bob in that room"]
    bob.last_seen_step, bob.position = belief.step - PARTNER_RECENT_STEPS - 1, None
    assert [c.reason for c in _option(belief, grab.text).claims] == ["announced"]  # an old sighting no longer counts
    belief.intent = PartnerIntent(kind="gograb", target_id=target.id, step=belief.step - 1)  # I said it first
    assert not _option(belief, grab.text).claims


def test_explores_carry_no_claim_and_puts_none_either() -> None:
    belief, options = _belief()
    bob = belief.partners["bob"]
    for option in (o for o in options if o.kind == "goexplore"):
        bob.room_id, bob.position, bob.last_seen_step = option.target_id, belief.rooms[option.target_id].center, \
            belief.step  # type: ignore[index]
        belief.partner_intents["bob"] = PartnerIntent(kind="goexplore", target_id=option.target_id, step=0)
        assert not _option(belief, option.text).claims  # a room is not a race


def test_notes_say_a_room_was_explored_or_whose_usual_room_it_is() -> None:
    belief, options = _belief()
    target = belief.goal[0]
    home = next(o for o in options if o.kind == "goexplore" and HOME_ROOM.get(target.target_name) == o.target_name)
    assert f"usual room of the {target.target_name}" in home.notes
    assert all(not o.notes for o in options if o.kind != "goexplore")
    belief.explored_rooms.add(home.target_id)  # type: ignore[arg-type]
    again = next(o for o in annotate(belief, options) if o.text == home.text)
    assert again.notes == ("explored",)


def test_a_grab_is_surplus_once_what_is_held_or_claimed_covers_its_class() -> None:
    belief, options = _belief()
    grab = next(o for o in options if o.kind == "gograb")
    assert not grab.surplus and all(not o.surplus for o in options)
    covering = [9100 + i for i in range(belief.open_needs()[grab.target_name])]  # type: ignore[index]
    for object_id in covering:  # the partner holds as many as are still needed
        belief.objects[object_id] = KnownObject(id=object_id, name=grab.target_name, kind="item", held_by="bob")
    belief.partners["bob"].holding = covering
    assert belief.open_needs()[grab.target_name] == 0  # type: ignore[index]
    assert _option(belief, grab.text).surplus


def test_the_detour_flag_marks_what_look_before_put_takes_and_only_while_it_would() -> None:
    from tests.envs.cwah.test_estimates import _holding_one_with_the_put_far

    belief, listed = _holding_one_with_the_put_far()
    options = annotate(belief, listed)  # the grabs are left off this list: annotate what is offered
    detour = belief.look_before_put(options)
    flagged = [o for o in options if o.detour]
    assert detour is not None and detour.detour and all(o.value is not None for o in flagged)
    assert len(flagged) < sum(o.value is not None for o in options)  # a look too far for the budget is not one
    assert not any(o.detour for o in listed)  # with a needed object there to grab, no look is a detour
    assert not any(o.detour for o in annotate(belief, [o for o in options if o.kind != "goput"]))  # nothing to deliver
    belief.holding.append(310)  # full hands: deliver first
    assert not any(o.detour for o in annotate(belief, options))


class _CheckingMHP(MHPAgent):
    """MHP (as `make_partner("mhp")` makes it) that checks the annotated list before each of its decisions."""

    decisions = 0

    def _next_plan(self) -> Affordance | None:
        _agrees(self.belief, CWAHAffordances().available(self.belief))
        self.decisions += 1
        return super()._next_plan()


def test_annotations_agree_with_the_belief_at_every_decision_mhp_makes() -> None:
    """Walk MHP teams through test houses; at each decision the annotated list must say what the belief says."""
    decisions = 0
    for episode, agents in (("test/3", 2), ("test/6", 2), ("test/1", 3)):
        env = make("cwah", episode=episode, num_agents=agents)
        members = [_CheckingMHP() for _ in range(agents)]
        run_episode(env, members, seed=0)
        decisions += sum(member.decisions for member in members)
    assert decisions > 80


def _agrees(belief: CWAHBelief, options: list[Affordance]) -> None:
    needs = belief.open_needs()
    announced = belief.announced_grabs()
    looks = sorted((o for o in options if o.value is not None), key=lambda o: steps_per_find(o.cost, o.value))
    assert [o.text for o in looks] == [o.text for o in belief.ranked_looks(options)]
    detour = belief.look_before_put(options)
    assert (looks[0] if looks and looks[0].detour else None) is detour
    for option in options:
        assert option.distance == my_distance(belief, option)
        if option.kind == "gograb":
            assert option.surplus is (needs[option.target_name] <= 0)  # type: ignore[index]
            assert any(c.reason == "announced" for c in option.claims) is (option.target_id in announced)
        reasons = [c.reason for c in option.claims]
        assert reasons == sorted(reasons, key=["nearer", "announced", "nearby"].index) and len(set(reasons)) == len(
            reasons)
