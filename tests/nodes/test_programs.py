"""The DSPy bridge: one rendering path for the graph and for DSPy optimizers, and saved programs load."""

from __future__ import annotations

from pathlib import Path

import dspy
from dspy.teleprompt import BootstrapFewShot

from coopgraph.graphs.compiler import compile_spec, node_context
from coopgraph.graphs.loader import load_spec
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.programs import adapter_for, run_program
from coopgraph.testing import scripted_lm

ACTIONS = ["walk to the kitchen", "grab the apple", "wait"]
FACTS = {"goal": "put the apple in the fridge", "facts_text": "You see an apple."}
SPEC = """name: tuned
entry: choose
nodes:
  choose:
    use: planning.choose_action
    {program}
edges:
  - choose -> END
inputs: [facts, actions]
"""


def _answer_b(messages, kwargs) -> str:
    return "Reasoning: take it\nAnswer: B"


def _examples() -> list[dspy.Example]:
    other = {"goal": "wash the mug", "facts_text": "You see a mug."}
    return [
        dspy.Example(context=FACTS, options=ACTIONS, answer="grab the apple").with_inputs("context", "options"),
        dspy.Example(context=other, options=["grab the mug", "wait"], answer="grab the mug")
        .with_inputs("context", "options"),
    ]


def _optimize(tmp_path: Path):
    spec_path = tmp_path / "tuned.yaml"
    spec_path.write_text(SPEC.format(program=""))
    loaded = load_spec(spec_path)
    ctx = node_context(loaded, "choose")
    lm = scripted_lm(lambda m, k: "Reasoning: grab what is needed\nAnswer: A")
    optimizer = BootstrapFewShot(metric=lambda ex, pred, trace=None: ex.answer == pred.answer,
                                 max_bootstrapped_demos=1, max_labeled_demos=0)
    with dspy.context(lm=lm, adapter=adapter_for(ctx)):
        compiled = optimizer.compile(ctx.program, trainset=_examples())
    return spec_path, ctx, lm, compiled


def test_graph_and_optimizer_send_the_same_prompt(tmp_path: Path) -> None:
    graph_lm = scripted_lm(_answer_b)
    spec_path, _, optimizer_lm, _ = _optimize(tmp_path)
    compile_spec(spec_path).invoke({"facts": FACTS, "actions": ACTIONS}, context=AgentResources(lm=graph_lm))
    graph_prompt = graph_lm.chat_model.calls[0][0]
    optimizer_prompts = [msgs for msgs, _ in optimizer_lm.chat_model.calls]
    assert any([m.content for m in msgs] == [m.content for m in graph_prompt] for msgs in optimizer_prompts)


def test_saved_program_round_trips_through_the_spec(tmp_path: Path) -> None:
    spec_path, ctx, _, compiled = _optimize(tmp_path)
    assert len(compiled.predict.demos) == 1
    compiled.save(str(tmp_path / "choose.json"))
    spec_path.write_text(SPEC.format(program="program: choose.json"))
    graph_lm = scripted_lm(_answer_b)
    compile_spec(spec_path).invoke({"facts": FACTS, "actions": ACTIONS}, context=AgentResources(lm=graph_lm))
    graph_prompt = [m.content for m in graph_lm.chat_model.calls[0][0]]
    assert len(graph_prompt) == 4  # system, demo question, demo answer, the question
    assert "wash the mug" in graph_prompt[1] and graph_prompt[2].endswith("Answer: A")
    direct_lm = scripted_lm(_answer_b)
    run_program(compiled, adapter_for(ctx), direct_lm, context=FACTS, options=ACTIONS)
    assert [m.content for m in direct_lm.chat_model.calls[0][0]] == graph_prompt


def test_the_adapter_asks_coopgraph_lms_only() -> None:
    import dspy
    import pytest

    from coopgraph.nodes.programs import JinjaAdapter

    with pytest.raises(TypeError, match="not a coopgraph LM"):
        JinjaAdapter("planning/choose_action")(dspy.LM("openai/gpt-4o-mini"), {}, dspy.Signature("a -> b"), [], {})
