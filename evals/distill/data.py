"""Prompt/completion pairs for distillation, rendered byte for byte as the `local-coop` server will see them.

The node's adapter renders the chat messages (the same path episodes use), and llama-cpp-python's own chat
formatter turns them into the prompt string, so training never guesses at the serving format.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from llama_cpp.llama_chat_format import format_chatml

from coopgraph.evals.decisions import DECISION_SPEC, DecisionRenderer
from coopgraph.evals.overcooked_explanations import explain_decision
from coopgraph.nodes.context import AgentResources

#: What the distilled profile answers with: the option's own text at once, no reasoning line. Copying the text
#: of the chosen action is far easier for a small model to learn than mapping a choice onto a letter.
DISTILL_PARAMS: dict[str, Any] = {"answer_format": "text", "reasoning_chars": 0}
#: Worlds whose expert can say why it chose, for a spec whose reply explains before it acts (LLM-Co's published
#: `Explanation: ... Action: ...`): there the pair teaches the explanation too. Elsewhere a distilled planner
#: answers with the action alone (DISTILL_PARAMS), whatever the spec asks.
EXPLAINERS: dict[str, Callable[[dict[str, Any], int], str]] = {"overcooked": explain_decision}


def chat_prompt(messages: list[dict[str, str]]) -> str:
    """The prompt text the server builds from these messages with the profile's chat format (ChatML)."""
    return format_chatml(messages).prompt


def turn_end(messages: list[dict[str, str]]) -> str:
    """What ends the model's turn in the profile's chat format (ChatML's `<|im_end|>`, the server's stop): a reply
    that explains first must learn to stop after its action, since its grammar allows more lines of thought."""
    stop = format_chatml(messages).stop
    return stop if isinstance(stop, str) else (stop or [""])[0]


def example(decision: dict[str, Any], renderer: DecisionRenderer, label: str = "expert") -> dict[str, Any] | None:
    """One training pair (the completion is the chosen option's text, after the expert's explanation where the
    spec's reply explains first and the world has an explainer), or None for a point the node answers
    without a call (a single option) or an unlabelled one (`label="oracle"` where the oracle's plan does not
    map onto the list)."""
    index = decision[f"{label}_index"]
    if len(decision["options"]) < 2 or index is None:
        return None
    resources = AgentResources(env=decision.get("prompt_env", "cwah"))  # the world's own templates
    params = renderer.choose_context().params
    answer = f"{getattr(params, 'answer_label', 'Answer')}: {decision['options'][index]}"  # LLM-Co's is `Action`
    explainer = EXPLAINERS.get(decision.get("env", "cwah"))
    if explainer is not None and getattr(params, "reasoning", None) == "free" and params.reasoning_chars > 0:
        messages = renderer.messages(decision["facts"], decision["options"], resources)  # the spec's own reply
        answer = f"{params.reasoning_label}: {explainer(decision, index)}\n{answer}{turn_end(messages)}"
    else:
        messages = renderer.messages(decision["facts"], decision["options"], resources, params=DISTILL_PARAMS)
    return {"id": decision["id"], "split": decision["split"], "prompt": chat_prompt(messages),
            "completion": answer, "n_options": len(decision["options"])}


def write_examples(decisions: Iterable[dict[str, Any]], out: Path, *, spec: str = DECISION_SPEC,
                   label: str = "expert") -> dict[str, int]:
    """Write the pairs as JSONL; returns how many went to each split."""
    renderer = DecisionRenderer(spec)
    counts: dict[str, int] = {}
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        for decision in decisions:
            pair = example(decision, renderer, label)
            if pair is None:
                continue
            counts[pair["split"]] = counts.get(pair["split"], 0) + 1
            fh.write(json.dumps(pair, sort_keys=True) + "\n")
    return counts
