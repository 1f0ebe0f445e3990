"""The prompt-reuse bench: tokens read anew with a shared cache slot versus one slot per agent."""

from __future__ import annotations

from coopgraph.evals.bench.prompt_reuse import reuse, section_sizes, shared_prefix


def _call(agent: str, text: str) -> dict:
    return {"agent": agent, "prompt": [{"role": "system", "content": "sys"}, {"role": "user", "content": text}]}


def _words(messages: list[dict[str, str]]) -> list[int]:
    return [hash(w) for m in messages for w in m["content"].split()]


def test_a_slot_per_agent_keeps_each_agents_prefix_that_alternating_calls_evict() -> None:
    calls = [_call("alice", "I am Alice step 1"), _call("bob", "I am Bob step 1"),
             _call("alice", "I am Alice step 2"), _call("bob", "I am Bob step 2")]
    got = reuse(calls, _words)
    assert got["prompt"] == [6, 6, 6, 6]
    assert got["shared_slot"] == [6, 3, 3, 3]  # only "sys I am" survives the other agent's call
    assert got["slot_per_agent"] == [6, 6, 1, 1]
    assert shared_prefix([1, 2, 3], [1, 2]) == 2 and shared_prefix([], [1]) == 0


def test_sections_of_coelas_template_are_counted_and_other_prompts_skipped() -> None:
    text = ("Goal: put the plate\nProgress: holding nothing\nDialogue so far:\n(nothing said yet)\n"
            "My previous actions: none\nIt is step 3 of 250. Available actions:\nA. [goexplore] <kitchen> (10)\n")
    sizes = section_sizes([_call("alice", text), _call("bob", "free text")], lambda s: len(s.split()))
    assert sizes["system"] == [1] and sizes["goal"] == [4] and sizes["previous actions"] == [4]
    assert sizes["step, options and format"] == [12]
