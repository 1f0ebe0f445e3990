"""Each process measure on small hand-built traces in the worlds' shapes (docs/evals.md, Process measures)."""

from __future__ import annotations

import json

from coopgraph.record.process import NotAvailable, process_measures
from tests.record.process.shapes import act, end, message, plan, plan_end, start, step

WALK = "[walk] <juice> (310)"


def test_idle_counts_waits_in_steps_and_marks_their_span() -> None:
    events = [*start(), step(1, alice=act(WALK), bob=act(WALK)), step(2, alice=act("[wait]"), bob=act(WALK)),
              step(3, alice=act("[wait]"), bob=act(WALK)), step(4, alice=act(WALK), bob=act(WALK))]
    m = process_measures(events)
    assert (m.unit, m.time) == ("steps", 4)
    assert m.agents["alice"]["idle"] == 2 and m.agents["alice"]["idle_share"] == 0.5
    assert m.agents["bob"]["idle"] == 0
    assert m.team["idle"] == 1.0 and m.team["idle_share"] == 0.25
    assert m.marks["alice"]["idle"] == [[2, 3]] and m.marks["bob"]["idle"] == []


def test_tdw_frames_count_and_an_agent_busy_with_a_long_action_is_not_idle() -> None:
    events = [*start("tdw-mat"),
              step(2, alice=act("[turn_left]", ready=True), bob=act("[turn_left]", ready=True)),
              step(4, alice=act("[move_forward]", ready=False), bob=act("[turn_left]", ready=True)),
              step(16, alice=act(None, ready=False), bob=act(None, ready=True))]
    m = process_measures(events)
    assert (m.unit, m.time) == ("frames", 16)
    assert m.agents["alice"]["idle"] == 0  # no action while its move runs: busy
    assert m.agents["bob"]["idle"] == 12  # ready and doing nothing for 12 frames
    assert m.marks["bob"]["idle"] == [[5, 16]]


def test_two_agents_heading_for_one_object_is_duplicated_effort_and_the_loser_meets_a_taken_object() -> None:
    grab = "[gograb] <juice> (310)"
    events = [*start(), plan("alice", 0, grab), plan("bob", 0, grab),
              step(1, alice=act(WALK, holding=[]), bob=act(WALK, holding=[])),
              step(2, alice=act(WALK, holding=[]), bob=act("[walk] <kitchen> (60)", holding=[])),
              step(3, alice=act("[grab] <juice> (310)", holding=[310]), bob=act("[walk] <kitchen> (60)", holding=[])),
              plan_end("alice", 3, grab),
              step(4, alice=act("[walk] <coffeetable> (111)", holding=[310]), bob=act(WALK, holding=[])),
              step(5, alice=act("[walk] <coffeetable> (111)", holding=[310]), bob=act(WALK, holding=[]))]
    m = process_measures(events)
    assert m.team["duplicated"] == 3  # steps 1-3: both plans name the juice
    assert m.agents["alice"]["duplicated"] == 3 and m.agents["bob"]["duplicated"] == 3
    assert m.marks["bob"]["duplicated"] == [[1, 3]]
    assert m.agents["bob"]["conflicts"] == 1 and m.agents["alice"]["conflicts"] == 0  # counted once, at step 3
    assert m.marks["bob"]["conflicts"] == [{"step": 3, "what": "taken: (310) by alice"}]


def test_rooms_and_the_goals_destination_are_not_targets() -> None:
    events = [*start(), step(1, alice=act("[walk] <kitchen> (60)"), bob=act("[walk] <kitchen> (60)")),
              plan("alice", 1, "[goput] <coffeetable> (111)"), plan("bob", 1, "[goput] <coffeetable> (111)"),
              step(2, alice=act("[walk] <coffeetable> (111)"), bob=act("[walk] <coffeetable> (111)")),
              step(3, alice=act("[put] <juice> (310) <coffeetable> (111)"),
                   bob=act("[put] <wine> (313) <coffeetable> (111)"))]
    m = process_measures(events)
    assert m.team["duplicated"] == 0 and m.agents["alice"]["duplicated"] == 0


def test_a_refused_action_is_a_conflict() -> None:
    events = [*start(), step(1, alice=act("[open] <cabinet> (113)", ok=False), bob=act(WALK))]
    m = process_measures(events)
    assert m.agents["alice"]["conflicts"] == 1 and m.team["conflicts"] == 1
    assert m.marks["alice"]["conflicts"] == [{"step": 1, "what": "refused: not reachable"}]


def test_overcooked_a_move_into_the_partners_cell_is_blocked_and_duplicated_effort_is_not_available() -> None:
    events = [*start("overcooked"),
              step(1, alice=act("[stay]", position=[1, 1]), bob=act("[stay]", position=[2, 1])),
              step(2, alice=act("[east]", position=[1, 1]), bob=act("[stay]", position=[2, 1])),
              step(3, alice=act("[north]", position=[1, 1]), bob=act("[interact]", position=[2, 1])),
              step(4, alice=act("[south]", position=[1, 1]), bob=act("[west]", position=[2, 1])),
              step(5, alice=act("[south]", position=[1, 2]), bob=act("[south]", position=[2, 2]))]
    m = process_measures(events)
    assert m.unit == "ticks"
    assert m.marks["alice"]["conflicts"] == [{"step": 2, "what": "blocked: [east]"}]  # not [north]: a counter
    # step 4: bob moves west into (1, 1), where alice stands, while alice turns south towards a counter
    assert m.marks["bob"]["conflicts"] == [{"step": 4, "what": "blocked: [west]"}]
    both = [*start("overcooked"),
            step(1, alice=act("[stay]", position=[1, 1]), bob=act("[stay]", position=[3, 1])),
            step(2, alice=act("[east]", position=[1, 1]), bob=act("[west]", position=[3, 1]))]
    collided = process_measures(both)  # both stepped into (2, 1) at once: neither moved
    assert collided.agents["alice"]["conflicts"] == 1 and collided.agents["bob"]["conflicts"] == 1
    assert isinstance(m.team["duplicated"], NotAvailable) and "names a thing by id" in m.team["duplicated"].reason
    assert isinstance(m.agents["bob"]["duplicated"], NotAvailable)


def _talk(after: list[dict]) -> list[dict]:
    return [*start(), plan("alice", 0, "[gograb] <juice> (310)"), plan("bob", 0, "[goexplore] <kitchen> (60)"),
            step(1, alice=act(WALK), bob=act("[walk] <kitchen> (60)")), message("bob", 2),
            step(2, alice=act(WALK), bob=act("[send_message] I: Next I will get <juice> (310).")), *after,
            step(3, alice=act(WALK), bob=act(WALK))]


def test_a_message_that_makes_the_partner_drop_its_plan_changed_it() -> None:
    m = process_measures(_talk([plan("alice", 2, "[gograb] <wine> (313)")]))
    assert m.agents["bob"]["plan_changes"] == 1 and m.agents["alice"]["plan_changes"] == 0
    assert m.team["plan_changes"] == 1
    assert m.marks["alice"]["plan_changes"] == [{"step": 2, "from": "bob", "plan": "[gograb] <wine> (313)"}]


def test_a_plan_that_ended_kept_or_changed_later_was_not_changed_by_the_message() -> None:
    ended = [*start(), plan("alice", 0, "[gograb] <juice> (310)"), plan_end("alice", 1, "[gograb] <juice> (310)"),
             step(1, alice=act(WALK), bob=act(WALK)), message("bob", 2), plan("alice", 2, "[gograb] <wine> (313)"),
             step(2, alice=act(WALK), bob=act(WALK))]
    same = _talk([plan("alice", 2, "[gograb] <juice> (310)")])
    later = _talk([step(9, alice=act(WALK), bob=act(WALK)), plan("alice", 9, "[gograb] <wine> (313)")])
    for events in (ended, same, later):
        assert process_measures(events).team["plan_changes"] == 0


def test_messages_without_any_plan_cannot_show_a_change() -> None:
    events = [*start(), message("bob", 1), step(1, alice=act(WALK), bob=act("[send_message] hi"))]
    m = process_measures(events)
    assert isinstance(m.team["plan_changes"], NotAvailable)
    assert isinstance(m.agents["bob"]["plan_changes"], NotAvailable)
    assert m.agents["alice"]["plan_changes"] == 0  # sent nothing
    quiet = process_measures([*start(), step(1, alice=act(WALK), bob=act(WALK))])
    assert quiet.team["plan_changes"] == 0  # nobody spoke: nothing to change


def test_work_share_from_the_worlds_per_agent_counts() -> None:
    events = [*start("overcooked"), step(1, alice=act("[stay]"), bob=act("[stay]")),
              end(alice={"deliveries": 3.0}, bob={"deliveries": 1.0})]
    m = process_measures(events)
    assert m.agents["alice"]["work_share"] == 0.75 and m.agents["bob"]["work_share"] == 0.25
    assert m.team["work_share"] == 0.75 and m.work_source == "episode_end per_agent.deliveries"


def test_work_share_credits_each_subgoal_to_the_agent_that_put_something_down() -> None:
    events = [*start(), step(1, 0, alice=act(WALK, holding=[310, 304]), bob=act(WALK, holding=[313])),
              step(2, 1, alice=act("[put] <juice> (310) <coffeetable> (111)", holding=[304]),
                   bob=act(WALK, holding=[313])),
              step(3, 2, alice=act("[put] <pudding> (304) <coffeetable> (111)", holding=[]),
                   bob=act(WALK, holding=[313])),
              step(4, 3, alice=act(WALK, holding=[]), bob=act("[put] <wine> (313) <coffeetable> (111)", holding=[]))]
    m = process_measures(events)
    assert m.agents["alice"]["work_share"] == 2 / 3 and m.agents["bob"]["work_share"] == 1 / 3


def test_work_share_is_not_available_when_progress_belongs_to_nobody() -> None:
    events = [*start("tdw-mat"), step(2, 0, alice=act("[move_forward]", holding=[7]), bob=act(None, holding=[])),
              step(4, 3, alice=act("[move_forward]", holding=[7]), bob=act(None, holding=[]))]
    m = process_measures(events)
    assert isinstance(m.team["work_share"], NotAvailable) and m.work_source is None


def test_a_trace_without_steps_gives_every_measure_as_not_available() -> None:
    m = process_measures(start())
    assert all(isinstance(v, NotAvailable) for v in m.team.values())
    assert all(isinstance(v, NotAvailable) for v in m.agents["alice"].values())


def test_waiting_for_a_partner_is_not_available_and_model_wait_sums_the_agents_calls() -> None:
    calls = [{"type": "llm_call", "t": 0.0, "agent": "alice", "latency_s": 0.5},
             {"type": "llm_call", "t": 0.0, "agent": "alice", "latency_s": 0.25}]
    m = process_measures([*start(), *calls, step(1, alice=act(WALK), bob=act(WALK))])
    assert m.agents["alice"]["model_wait_s"] == 0.75 and m.agents["bob"]["model_wait_s"] == 0
    assert m.team["model_wait_s"] == 0.375
    assert isinstance(m.team["partner_wait"], NotAvailable)


def test_a_trace_from_before_these_measures_existed_still_reports() -> None:
    """The oldest traces: no layout, no per-agent counts, no `ready`, no `subgoals_done`, no manifest."""
    events = [{"type": "episode_start", "t": 0.0, "env": "cwah", "agents": ["alice", "bob"]},
              {"type": "env_step", "t": 1.0, "step": 1, "agents": {"alice": {"action": "[walk] <kitchen> (60)"},
                                                                  "bob": {"action": "[wait]", "ok": True}}}]
    data = json.loads(json.dumps(process_measures(events).as_dict()))
    assert data["team"]["idle"] == 0.5 and data["team"]["conflicts"] == 0
    assert "na" in data["team"]["work_share"] and set(data["agents"]) == {"alice", "bob"}
