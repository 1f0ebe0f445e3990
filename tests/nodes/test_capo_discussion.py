"""The discussion state machine on its own: consensus, the round budget, silent partners, role changes."""

from __future__ import annotations

from coopgraph.nodes.capo_discussion import Discussion, Rules
from coopgraph.nodes.capo_protocol import CapoMessage, parse_message

PLAN = "Alice: grab <apple> (1)\nBob: explore <kitchen> (2)"


def _designer(agents: tuple[str, ...] = ("alice", "bob"), **rules: int | bool) -> Discussion:
    discussion = Discussion.start("alice", list(agents), "alice")
    discussion.rules = Rules(**rules)  # type: ignore[arg-type]
    return discussion


def _answer(discussion: Discussion, sender: str, agree: bool) -> CapoMessage:
    return CapoMessage("feedback", sender, discussion.version, discussion.round, agree, "ok" if agree else "change")


def _send_plan(discussion: Discussion, step: int) -> str | None:
    turn, _ = discussion.turn(step, None, None)
    assert turn == "design"
    return discussion.designed(f"{PLAN} at step {step}", step)


def test_designer_stops_at_consensus() -> None:
    d = _designer()
    sent = _send_plan(d, 0)
    assert sent is not None and sent.startswith("[capo plan 1.1]") and d.open
    assert d.turn(1, None, None) == (None, None)  # the answer cannot be here yet
    d.receive(_answer(d, "bob", True), 2)
    assert d.turn(2, None, None) == (None, None)
    assert d.consensus and not d.open and d.round == 1


def test_designer_refines_until_the_budget_is_spent() -> None:
    d = _designer(rounds=3)
    sent = [_send_plan(d, 0)]
    step = 0
    for _ in range(5):
        step += 2
        d.receive(_answer(d, "bob", False), step)
        turn, _ = d.turn(step, None, None)
        if turn is None:
            break
        sent.append(d.designed(f"{PLAN} at step {step}", step))
    assert [s.split("]")[0] for s in sent] == ["[capo plan 1.1", "[capo plan 1.2", "[capo plan 1.3"]
    assert not d.open and not d.consensus and any("budget spent at 1.3" in e for e in d.log)


def test_a_refinement_that_changes_nothing_ends_the_discussion_without_a_message() -> None:
    d = _designer(rounds=3)
    _send_plan(d, 0)
    d.receive(_answer(d, "bob", False), 2)
    assert d.turn(2, None, None)[0] == "design"
    assert d.designed(d.meta_plan, 2) is None and not d.open and d.round == 1 and d.mode == "adapt"


def test_a_partner_that_never_answers_leaves_the_designer_planning_alone() -> None:
    d = _designer(feedback_wait=2)
    _send_plan(d, 0)
    for step in (1, 2, 3):
        assert d.turn(step, None, None) == (None, None) and d.open
    d.turn(4, None, None)
    assert d.solo and d.silent == {"bob"} and not d.open
    d.turn(5, "found <apple> (9)", None)  # progress: adapt alone, without a message
    assert d.mode == "adapt" and d.designed(PLAN, 5) is None and d.version == 2


def test_with_two_evaluators_the_designer_waits_for_both() -> None:
    d = _designer(("alice", "bob", "carol"))
    _send_plan(d, 0)
    d.receive(_answer(d, "bob", True), 2)
    assert d.turn(2, None, None) == (None, None) and d.open
    d.receive(_answer(d, "carol", False), 3)
    assert d.turn(3, None, None)[0] == "design" and d.mode == "refine"


def test_progress_during_a_discussion_waits_for_it_to_end_then_the_designer_asks_if_the_plan_still_fits() -> None:
    d = _designer()
    _send_plan(d, 0)
    assert d.turn(1, "found <wine> (7)", None) == (None, None)
    d.receive(_answer(d, "bob", True), 2)
    turn, _ = d.turn(2, None, None)
    assert turn == "check" and d.mode == "adapt" and "found <wine> (7)" in d.pending[0]
    assert d.checked(False, 2) is True  # it does not fit: a new version, discussed again
    assert d.designed(PLAN, 2).startswith("[capo plan 2.1]") and d.pending == [] and d.open


def test_a_plan_that_still_fits_is_kept_and_nobody_speaks() -> None:
    d = _designer()
    _send_plan(d, 0)
    d.receive(_answer(d, "bob", True), 2)
    d.turn(2, None, None)
    assert d.turn(5, "found <wine> (7)", None) == ("check", None)
    assert d.checked(True, 5) is False
    assert d.pending == [] and d.version == 1 and not d.open and d.outbox == []
    assert d.turn(6, None, None) == (None, None)  # the same progress is not checked again
    assert any("plan 1 still fits" in entry for entry in d.log)


def test_without_the_check_every_progress_event_brings_a_new_plan() -> None:
    d = _designer(check_fit=False)
    _send_plan(d, 0)
    d.receive(_answer(d, "bob", True), 2)
    d.turn(2, None, None)
    assert d.turn(5, "found <wine> (7)", None) == ("design", None)


def test_a_plan_longer_than_one_message_goes_out_in_parts_one_step_each() -> None:
    d = _designer(message_chars=120)
    assert d.turn(0, None, None)[0] == "design"
    long_plan = "Alice: " + ", ".join(f"grab <apple> ({i})" for i in range(20)) + "\nBob: explore <kitchen> (2)"
    first = d.designed(long_plan, 0)
    parts = [first, *d.outbox]
    assert len(parts) >= 4 and all(len(p) <= 120 for p in parts) and first.startswith("[capo plan 1.1 1/")
    sent = [first]
    for step in range(1, len(parts)):
        turn, text = d.turn(step, None, None)
        assert turn is None and text == parts[step]
        sent.append(text)
    assert d.sent_step == len(parts) - 1  # answers are awaited from the last part on
    e = Discussion.start("bob", ["alice", "bob"], "alice")
    for step, text in enumerate(sent):
        e.receive(parse_message("alice", text), step)
        assert (e.meta_plan == "") == (step < len(sent) - 1)  # the plan counts once it is whole
    assert e.meta_plan == long_plan and e.to_evaluate == (1, 1)


def test_evaluator_adopts_answers_and_its_progress_rides_along_in_the_answer() -> None:
    e = Discussion.start("bob", ["alice", "bob"], "alice")
    assert e.role == "evaluator"
    assert e.turn(1, None, "found <apple> (1)") == (None, None)  # nothing heard yet: nothing to report to
    e.receive(parse_message("alice", "[capo plan 1.1] Alice: grab <apple> (1) // Bob: b"), 1)
    assert e.meta_plan == "Alice: grab <apple> (1)\nBob: b" and e.changed_step == 1
    turn, _ = e.turn(1, None, "found <apple> (1) in the kitchen; found <wine> (7)")  # the plan names the apple
    assert turn == "evaluate"
    answer = e.evaluated(False, "Bob should take the wine", 1)
    assert answer == "[capo feedback 1.1 revise] Bob should take the wine My progress: found <wine> (7)."
    assert e.turn(2, None, "found <cupcake> (8)") == (None, None)  # no extra paid message for progress
    d = _designer()
    _send_plan(d, 0)
    d.receive(parse_message("bob", answer), 2)
    assert d.pending == ["Bob: found <wine> (7)"]  # the designer learns it from the dialogue


def test_the_small_model_variant_pays_a_progress_message() -> None:
    e = Discussion.start("bob", ["alice", "bob"], "alice")
    e.rules = Rules(report_progress=True)
    e.receive(parse_message("alice", "[capo plan 1.1] Alice: a // Bob: b"), 1)
    e.turn(1, None, None)
    assert e.evaluated(True, "", 1) == "[capo feedback 1.1 agree] The plan works for me."
    assert e.turn(2, None, "found <wine> (7)") == (None, "[capo progress 1] found <wine> (7).")


def test_evaluator_without_a_designer_plans_alone_and_yields_when_a_plan_comes() -> None:
    e = Discussion.start("bob", ["alice", "bob"], "alice")
    e.rules = Rules(plan_wait=3)
    assert e.turn(2, None, None) == (None, None)
    assert e.turn(3, None, None) == ("design", None) and e.role == "designer" and e.solo
    assert e.designed(PLAN, 3) is None  # alone: nothing is sent
    e.receive(parse_message("alice", "[capo plan 1.1] Alice: a // Bob: b"), 9)
    assert e.role == "evaluator" and e.designer == "alice" and not e.solo and e.to_evaluate == (1, 1)


def test_plans_from_anyone_but_the_designer_are_ignored() -> None:
    e = Discussion.start("bob", ["alice", "bob", "carol"], "alice")
    e.receive(parse_message("carol", "[capo plan 5.1] Bob: give me everything"), 1)
    e.receive(parse_message("mallory", "[capo plan 6.1] Bob: give me everything"), 1)
    assert e.meta_plan == "" and e.to_evaluate is None


def test_without_evaluation_the_plan_is_adopted_as_sent() -> None:
    d = _designer(evaluate=False)
    assert _send_plan(d, 0) is not None and not d.open
    e = Discussion.start("bob", ["alice", "bob"], "alice")
    e.rules = Rules(evaluate=False)
    e.receive(parse_message("alice", "[capo plan 1.1] Alice: a // Bob: b"), 1)
    assert e.turn(1, None, None) == (None, None) and e.consensus


def test_with_two_evaluators_the_designer_waits_for_both_and_agrees_only_when_both_do() -> None:
    d = _designer(("alice", "bob", "carol"))
    _send_plan(d, 0)
    d.receive(_answer(d, "bob", True), 1)
    assert d.turn(2, None, None) == (None, None) and d.open  # carol has not answered yet
    d.receive(_answer(d, "carol", False), 2)
    assert d.turn(3, None, None) == ("design", None) and not d.consensus  # one "revise" is enough to refine
    d.designed(f"{PLAN} revised", 3)
    d.receive(_answer(d, "carol", True), 4)
    d.receive(_answer(d, "bob", True), 4)
    d.turn(5, None, None)
    assert d.consensus and d.round == 2 and not d.silent
