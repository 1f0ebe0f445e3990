"""planning.shortlist and coela-brief: kinds grouped, nearest first, a few of each, and a prompt a third as long."""

from __future__ import annotations

import re
from typing import Any

from coopgraph.envs.protocol import Affordance
from coopgraph.evals.decisions import DecisionRenderer, episode_decisions
from coopgraph.nodes.candidates import my_distance
from coopgraph.nodes.shortlist import ShortlistParams, shortlist
from tests.nodes.first_decision import first_decision

LINE = re.compile(r"^([A-Z]{1,2})\. (\[(\w+)\] <\w+> \(\d+\))(?: — (.*))?$", re.MULTILINE)


def _belief_and_options() -> tuple[Any, list[Affordance]]:
    agent, _ = first_decision("coela")
    belief = agent.memory.semantic
    return belief, agent.resources.affordances.available(belief)


def test_kinds_come_in_order_and_the_nearest_first_within_each() -> None:
    belief, options = _belief_and_options()
    kept = shortlist(belief, options, ShortlistParams(per_kind=0))
    assert sorted(o.text for o, _ in kept) == sorted(o.text for o in options)  # per_kind 0 keeps every option
    order = ShortlistParams().kind_order
    kinds = [order.index(o.kind) for o, _ in kept]
    assert kinds == sorted(kinds)
    for kind in {o.kind for o, _ in kept}:
        metres = [my_distance(belief, o) for o, _ in kept if o.kind == kind]
        assert metres == sorted(metres)


def test_only_the_nearest_few_of_each_kind_are_kept_and_none_is_added() -> None:
    belief, options = _belief_and_options()
    kept = shortlist(belief, options, ShortlistParams(per_kind=2))
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
    notes = dict((o.text, n) for o, n in shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert notes[explore.text].endswith(", explored")
    for option in options:
        assert notes[option.text].startswith(f"{my_distance(belief, option):.1f} m")


def test_a_partner_standing_nearer_to_a_grab_is_named() -> None:
    belief, options = _belief_and_options()
    grab = next(o for o in options if o.kind in ("gograb", "gocheck"))
    partner = next(iter(belief.partners.values()))
    target = belief.objects[grab.target_id]
    partner.position, partner.room_id, partner.last_seen_step = target.position, target.room_id, belief.step
    notes = dict((o.text, n) for o, n in shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert f"{partner.name} nearer" in notes[grab.text]
    partner.last_seen_step = belief.step - 5  # not seen this step: no claim on it
    notes = dict((o.text, n) for o, n in shortlist(belief, options, ShortlistParams(per_kind=0)))
    assert "nearer" not in notes[grab.text]


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
