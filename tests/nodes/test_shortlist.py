"""planning.shortlist and coela-brief: groups in order, nearest first, a few of each, and a prompt a third as long.

The shortlist reads only the fields C-WAH annotates its options with, for the belief as it stands when they are
listed; tests that change the belief therefore list (annotate) the options again, as the next decision would.
"""

from __future__ import annotations

import re
from typing import Any

from coopgraph.envs.cwah.annotate import annotate, my_distance
from coopgraph.envs.cwah.estimates import PARTNER_RECENT_STEPS
from coopgraph.envs.protocol import Affordance
from coopgraph.evals.decisions import DecisionRenderer, episode_decisions
from coopgraph.nodes.shortlist import ShortlistParams, hand_free, shortlist
from tests.nodes.first_decision import first_decision

LINE = re.compile(r"^([A-Z]{1,2})\. (\[(\w+)\] <\w+> \(\d+\))(?: — (.*))?$", re.MULTILINE)


def _belief_and_options() -> tuple[Any, list[Affordance]]:
    agent, _ = first_decision("coela")
    belief = agent.memory.semantic
    return belief, agent.resources.affordances.available(belief)


def _shortlist(belief: Any, options: list[Affordance], params: ShortlistParams) -> list[tuple[Affordance, str]]:
    """The shortlist as the node makes it, of `options` as the world annotates them for the belief now."""
    return shortlist(annotate(belief, options), params, hand_free(belief))


def test_kinds_come_in_order_and_the_nearest_first_within_each() -> None:
    belief, options = _belief_and_options()
    kept = _shortlist(belief, options, ShortlistParams(per_kind=0))
    assert sorted(o.text for o, _ in kept) == sorted(o.text for o in options)  # per_kind 0 keeps every option
    order = ShortlistParams().group_order
    groups = [order.index(o.group) for o, _ in kept]
    assert groups == sorted(groups)
    for group in {o.group for o, _ in kept}:
        metres = [my_distance(belief, o) for o, _ in kept if o.group == group]
        assert metres == sorted(metres)


def test_only_the_nearest_few_of_each_kind_are_kept_and_none_is_added() -> None:
    belief, options = _belief_and_options()
    kept = _shortlist(belief, options, ShortlistParams(per_kind=2))
    texts = {o.text for o in options}
    assert {o.text for o, _ in kept} <= texts and len(kept) < len(options)
    for kind in {o.kind for o in options}:
        ours = [o for o, _ in kept if o.kind == kind]
        theirs = sorted(my_distance(belief, o) for o in options if o.kind == kind)
        assert len(ours) == min(2, len(theirs))
        assert max(my_distance(belief, o) for o in ours) <= theirs[len(ours) - 1]


def test_notes_say_how_far_and_whether_a_room_was_explored() -> None:
    belief, options = _belief_and_options()
    explore = next(o for o in options if o.kind == "goexplore")
    belief.explored_rooms.add(explore.target_id)
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert notes[explore.text].endswith(", explored")
    for option in options:
        assert notes[option.text].startswith(f"{my_distance(belief, option):.1f} m")


def test_an_unexplored_room_is_noted_as_the_usual_room_of_a_goal_target_not_found_yet() -> None:
    from coopgraph.envs.cwah.catalog import HOME_ROOM

    belief, options = _belief_and_options()
    target = belief.goal[0]
    explores = {o.target_id: o for o in options if o.kind == "goexplore"}
    home = next(o for o in explores.values() if HOME_ROOM.get(target.target_name) == o.target_name)
    belief.objects.pop(target.target_id, None)  # the target's whereabouts are unknown
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert f"usual room of the {target.target_name}" in notes[home.text]
    assert all(f"usual room of the {target.target_name}" not in notes[o.text] for o in explores.values()
               if o is not home)
    belief.explored_rooms.add(home.target_id)
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert notes[home.text].endswith(", explored") and "usual room" not in notes[home.text]


def test_a_partner_standing_nearer_to_a_grab_is_named() -> None:
    belief, options = _belief_and_options()
    grab = next(o for o in options if o.kind in ("gograb", "gocheck"))
    partner = next(iter(belief.partners.values()))
    target = belief.objects[grab.target_id]
    partner.position, partner.room_id, partner.last_seen_step = target.position, target.room_id, belief.step
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert f"{partner.name} nearer" in notes[grab.text]
    partner.last_seen_step = belief.step - 5  # not seen this step: no claim on it
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert "nearer" not in notes[grab.text]


def test_a_nearer_partner_with_full_hands_has_no_claim_on_a_grab_but_keeps_one_on_a_check() -> None:
    belief, options = _belief_and_options()
    partner = next(iter(belief.partners.values()))
    partner.holding = [9001, 9002]  # as many objects as it has hands
    for kind in ("gograb", "gocheck"):
        option = next(o for o in options if o.kind == kind)
        target = belief.objects[option.target_id]
        partner.position, partner.room_id, partner.last_seen_step = target.position, target.room_id, belief.step
        notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
        assert ("nearer" in notes[option.text]) is (kind == "gocheck")


def test_a_partner_that_said_it_goes_for_a_target_is_named() -> None:
    from coopgraph.envs.cwah.belief import PartnerIntent

    belief, options = _belief_and_options()
    check = next(o for o in options if o.kind == "gocheck")
    agent_id, partner = next(iter(belief.partners.items()))
    belief.partner_intents[agent_id] = PartnerIntent(kind="gocheck", target_id=check.target_id, step=0)
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert notes[check.text].endswith(f", {partner.name} going for it")
    assert sum("going for it" in n for n in notes.values()) == 1
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0, partner_notes=False)))
    assert "going for it" not in notes[check.text]


def test_a_free_handed_partner_lately_in_a_grab_s_room_is_named_until_the_sighting_is_old() -> None:
    belief, options = _belief_and_options()
    grab = next(o for o in options if o.kind == "gograb")
    partner = next(iter(belief.partners.values()))
    target_room = belief.objects[grab.target_id].room_id
    belief.room_id = next(r for r in belief.rooms if r != target_room)  # I am elsewhere
    partner.room_id, partner.position, partner.holding = target_room, None, []
    partner.last_seen_step, partner.last_heard_step = -1, belief.step
    params = ShortlistParams(per_kind=0)
    assert dict((o.text, n) for o, n in _shortlist(belief, options, params))[grab.text].endswith(
        f", {partner.name} in that room")
    partner.last_heard_step = belief.step - PARTNER_RECENT_STEPS - 1
    assert "in that room" not in dict((o.text, n) for o, n in _shortlist(belief, options, params))[grab.text]
    partner.last_heard_step, partner.holding = belief.step, [1, 2]  # hands full: it cannot take it
    assert "in that room" not in dict((o.text, n) for o, n in _shortlist(belief, options, params))[grab.text]


def test_drop_claimed_leaves_off_what_a_partner_will_do_first_but_never_everything() -> None:
    from coopgraph.envs.cwah.belief import PartnerIntent

    belief, options = _belief_and_options()
    checks = [o for o in options if o.kind == "gocheck"]
    agent_id = next(iter(belief.partners))
    belief.partner_intents[agent_id] = PartnerIntent(kind="gocheck", target_id=checks[0].target_id, step=0)
    params = ShortlistParams(per_kind=1, drop_claimed=True)
    kept = [o.text for o, _ in _shortlist(belief, options, params)]
    assert checks[0].text not in kept
    assert len(checks) == 1 or sum(text.startswith("[gocheck]") for text in kept) == 1  # the next one moves up
    assert checks[0].text in [o.text for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0))]
    only = [checks[0]]  # the claimed check is all there is: it stays
    assert [o.text for o, _ in _shortlist(belief, only, params)] == [checks[0].text]


def test_drop_unneeded_leaves_off_grabs_of_a_class_the_hands_already_cover() -> None:
    from coopgraph.envs.cwah.belief import KnownObject

    belief, options = _belief_and_options()
    grab = next(o for o in options if o.kind == "gograb")
    name = grab.target_name
    params = ShortlistParams(per_kind=0, drop_unneeded=True)
    assert grab.text in [o.text for o, _ in _shortlist(belief, options, params)]  # still needed: kept
    covering = [9100 + i for i in range(belief.still_to_fetch()[name])]
    for object_id in covering:  # the partner holds as many as are still needed
        belief.objects[object_id] = KnownObject(id=object_id, name=name, kind="item", held_by="bob")
    next(iter(belief.partners.values())).holding = covering
    assert belief.still_to_fetch()[name] == 0
    kept = [o.text for o, _ in _shortlist(belief, options, params)]
    assert not any(text.startswith("[gograb]") and f"<{name}>" in text for text in kept)
    assert grab.text in [o.text for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0))]
    assert [o.text for o, _ in _shortlist(belief, [grab], params)] == [grab.text]  # never an empty list


def test_coela_brief_prompt_lists_the_shortlist_with_notes_and_leaves_out_the_long_parts() -> None:
    agent, prompts = first_decision("coela-brief")
    _, full = first_decision("coela")
    listed = LINE.findall(prompts[0])
    assert listed and all(note.endswith(" m") or " m, " in note for *_, note in listed)
    assert "Dialogue so far" not in prompts[0] and "previous actions" not in prompts[0]
    assert "Still to fetch:" in prompts[0] and "I hold nothing." in prompts[0]
    assert len(prompts[0]) < len(full[0]) and len(listed) <= len(LINE.findall(full[0]))


def test_decision_points_of_coela_brief_are_labelled_on_the_shortlist() -> None:
    records = episode_decisions("cwah", "test/0", ["mhp", "mhp"], renderer=DecisionRenderer("coela-brief"))
    assert records
    for record in records:
        assert record["options"][record["expert_index"]] == record["expert_choice"]
        kinds = [re.match(r"\[(\w+)\]", o).group(1) for o in record["options"]]
        assert max(kinds.count(k) for k in set(kinds)) <= 3
        notes = record["facts"]["option_notes"]
        assert set(notes) <= set(record["options"]) and "Still to fetch:" in record["facts"]["progress"]
        looks = [o for o, k in zip(record["options"], kinds, strict=True) if k in ("gocheck", "goexplore")]
        if record["expert_choice"] in looks:  # rank_looks: MHP's look is the first look listed
            assert record["expert_choice"] == looks[0]


def test_rank_looks_lists_checks_and_explores_as_one_group_best_value_per_step_first() -> None:
    belief, options = _belief_and_options()
    ranked = [o.text for o in belief.ranked_looks(options)]
    assert {o.kind for o in options} >= {"gocheck", "goexplore"}
    kept = [o for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0, rank_looks=True))]
    looks = [o.text for o in kept if o.kind in ("gocheck", "goexplore")]
    assert looks == ranked and ranked != [o.text for o in kept if o.kind == "gocheck"] + [
        o.text for o in kept if o.kind == "goexplore"]  # the ranking interleaves the kinds here
    kinds = [o.kind for o in kept]
    assert kinds.index("gocheck") > max((i for i, k in enumerate(kinds) if k in ("goput", "gograb")), default=-1)
    capped = [o for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=1, rank_looks=True))]
    assert [o.text for o in capped if o.kind in ("gocheck", "goexplore")] == [
        t for t in ranked if t in {o.text for o in capped}]  # the cap keeps the best of each kind, in rank order
    plain = [o for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0))]
    assert [o.kind for o in plain if o.kind in ("gocheck", "goexplore")] == sorted(
        (o.kind for o in plain if o.kind in ("gocheck", "goexplore")), key=("gocheck", "goexplore").index)


def test_detour_note_marks_the_look_worth_taking_before_the_put() -> None:
    from tests.envs.cwah.test_estimates import _holding_one_with_the_put_far

    belief, options = _holding_one_with_the_put_far()
    detour = belief.look_before_put(options)
    notes = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0, detour_note=True)))
    assert [text for text, n in notes.items() if "on the way" in n] == [detour.text]
    plain = dict((o.text, n) for o, n in _shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert not any("on the way" in n for n in plain.values())


def test_detour_first_lists_that_look_ahead_of_the_put_and_only_then() -> None:
    from tests.envs.cwah.test_estimates import _holding_one_with_the_put_far

    belief, options = _holding_one_with_the_put_far()
    detour = belief.look_before_put(options)
    first = _shortlist(belief, options, ShortlistParams(per_kind=0, detour_first=True))
    plain = _shortlist(belief, options, ShortlistParams(per_kind=0))
    assert first[0][0].text == detour.text and plain[0][0].kind == "goput"
    assert [o.text for o, _ in first[1:]] == [o.text for o, _ in plain if o.text != detour.text]  # the rest keep order
    assert not any("on the way" in n for _, n in first)  # the note is its own knob
    belief.holding.append(310)  # full hands: deliver first, nothing moves
    assert [o.text for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0, detour_first=True))] == [
        o.text for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0))]


def test_fill_hands_lists_grabs_before_puts_only_while_a_hand_is_free() -> None:
    from coopgraph.envs.cwah import CWAHAffordances
    from tests.envs.cwah.test_estimates import _holding_one_with_the_put_far

    belief, _ = _holding_one_with_the_put_far()
    options = CWAHAffordances().available(belief)
    kinds = [o.kind for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0, fill_hands=True))]
    assert kinds.index("gograb") < kinds.index("goput")
    plain = [o.kind for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0))]
    assert plain.index("goput") < plain.index("gograb")
    belief.holding.append(310)  # both hands full: deliver first
    full = [o.kind for o, _ in _shortlist(belief, options, ShortlistParams(per_kind=0, fill_hands=True))]
    assert full.index("goput") < full.index("gograb")


def test_drop_unneeded_counts_what_a_partner_will_likely_take() -> None:
    from coopgraph.envs.cwah import CWAHAffordances
    from coopgraph.envs.cwah.belief import PartnerState
    from tests.envs.cwah.test_estimates import _holding_one_with_the_put_far

    belief, _ = _holding_one_with_the_put_far()
    options = CWAHAffordances().available(belief)
    juice = next(o for o in options if o.text.startswith("[gograb] <juice>"))
    kept = ShortlistParams(per_kind=0, drop_unneeded=True)
    assert juice.text in [o.text for o, _ in _shortlist(belief, options, kept)]
    spot = belief.objects[juice.target_id].position  # a free-handed partner stands right at the juice
    belief.partners["bob"] = PartnerState(agent_id="bob", name="Bob", room_id=belief.room_id, position=spot,
                                          last_seen_step=belief.step)
    listed = [o.text for o, _ in _shortlist(belief, options, kept)]
    assert juice.text not in listed and listed  # Bob, free-handed and right there, will take it
