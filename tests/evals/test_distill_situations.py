"""Reading a round by situation: the table of what the points are cases of, and an eval's states relabelled with
the greedy cook's choices (how round 3's failures were found)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.distill.relabel import RelabelError, relabel
from coopgraph.evals.distill.relabel import main as relabel_main
from coopgraph.evals.distill.situations import main, tally, verb
from coopgraph.record.trace_file import read_events
from coopgraph.runtime.launch import run_configured
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import overfetching_policy

STUCK = "holding onion; no pot needs it, nowhere to set it down"


def point(n: int, situation: str, label: str, followed: str, rollin: str = "learner") -> dict[str, Any]:
    return {"id": f"overcooked/x/alice/{n:03d}", "split": "train", "situation": situation, "rollin": rollin,
            "expert_choice": label, "followed": followed, "options": [label, followed],
            "messages": [{"role": "user", "content": f"state {n}"}]}


def test_labels_are_grouped_by_verb_and_a_learner_is_scored_on_its_own_points() -> None:
    assert verb("pick up onion from o12.") == "pick up onion from o" and verb("wait.") == "wait."
    rows = tally([point(1, STUCK, "wait.", "place onion in c0."), point(2, STUCK, "move away.", "move away."),
                  point(3, STUCK, "wait.", "wait.", rollin="expert"),
                  point(3, STUCK, "wait.", "wait.", rollin="expert")])  # the same point twice counts once
    row = rows[STUCK]
    assert (row.points, row.learner, row.agreed) == (3, 2, 1) and row.labels == {"wait.": 2, "move away.": 1}


def test_the_table_prints_and_an_unclassed_point_is_named_by_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "rollin.jsonl"
    good.write_text(json.dumps(point(1, STUCK, "wait.", "place onion in c0.")) + "\n")
    assert main([str(good)]) == 0
    assert f"| {STUCK} | 1 | wait. 1 | 1 | 0.00 |" in capsys.readouterr().out
    old = tmp_path / "round3.jsonl"
    old.write_text(good.read_text() + json.dumps({"split": "train", "expert_choice": "wait."}) + "\n")
    assert main([str(old)]) == 2
    assert f"{old}:2: this decision point has no `situation`" in capsys.readouterr().err


def test_an_evals_trace_is_replayed_from_its_own_replies_and_labelled_with_the_greedy_cooks_choice(
        tmp_path: Path) -> None:
    run = run_configured("overcooked", {}, "cramped_room", ["llmco-lite-steady", "greedy"],
                         lambda: scripted_lm(overfetching_policy), 120, tmp_path, trace_name="run.jsonl")
    assert run.trace_path is not None
    trace = Path(run.trace_path)
    points, line = relabel(trace)
    calls = [e for e in read_events(trace) if e["type"] == "llm_call"]
    assert len(points) == len(calls) and {p["rollin"] for p in points} == {"learner"}
    assert [p["followed"] for p in points] == [c["response"].removeprefix("Action: ") for c in calls]
    assert all(p["split"] == "test" and p["situation"] for p in points)  # a paper layout: for reading only
    assert any(p["followed"] != p["expert_choice"] for p in points)
    assert "cramped_room, llmco-lite-steady" in line and f"{len(calls)} model calls" in line

    tampered = tmp_path / "tampered.jsonl"
    events = read_events(trace)
    for event in events:
        if event["type"] == "llm_call":
            event["prompt"][-1]["content"] += " "
    tampered.write_text("".join(json.dumps(e) + "\n" for e in events))
    with pytest.raises(RelabelError, match="left the trace at the planner's decision 1"):
        relabel(tampered)


def test_a_trace_it_cannot_follow_is_refused_with_one_line(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    run = run_configured("overcooked", {}, "cramped_room", ["greedy", "greedy"], [None, None], 5, tmp_path,
                         trace_name="greedy.jsonl")
    assert relabel_main([str(run.trace_path), "-o", str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "greedy.jsonl" in err and "planner playing first beside the greedy cook" in err and "Traceback" not in err
