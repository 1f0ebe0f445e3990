"""Prompt/completion pairs for distillation, rendered byte for byte as the `local-coop` server will see them.

The node's adapter renders the chat messages (the same path episodes use), and llama-cpp-python's own chat
formatter turns them into the prompt string, so training never guesses at the serving format.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from jinja2.exceptions import UndefinedError
from llama_cpp.llama_chat_format import format_chatml

from coopgraph.evals.decision_reader import DecisionFileError, require_keys
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


class PairError(DecisionFileError):
    """A decision point the spec's prompt cannot be rendered from (a fact it needs was never recorded)."""


#: What a pair is built from: the keys every point `coopgraph data decisions` writes carries.
POINT_KEYS = ("id", "split", "options", "facts")


def _pair(decision: dict[str, Any], renderer: DecisionRenderer, label: str, where: str) -> dict[str, Any] | None:
    require_keys(decision, (*POINT_KEYS, f"{label}_index"), where)  # a JSON line, but not a decision point
    try:
        return example(decision, renderer, label)
    except UndefinedError as exc:  # e.g. the history a spec shows, from points recorded through one that does not
        recorded, name = decision.get("spec") or "another spec", renderer.loaded.spec.name
        raise PairError(f"{where}: {name}'s prompt needs a fact this decision point lacks ({exc.message}); "
                        f"it was recorded through {recorded}, so render it with a spec that shows the same facts "
                        f"or record the points again with --spec {name}") from None


def write_examples(decisions: Iterable[dict[str, Any]], out: Path, *, spec: str = DECISION_SPEC,
                   label: str = "expert") -> dict[str, int]:
    """Write the pairs as JSONL; returns how many went to each split."""
    return write_numbered_examples(((f"decision point {d.get('id')}", d) for d in decisions), out, spec=spec,
                                   label=label)


def write_numbered_examples(decisions: Iterable[tuple[str, dict[str, Any]]], out: Path, *,
                            spec: str = DECISION_SPEC, label: str = "expert") -> dict[str, int]:
    """`write_examples` for points that say where they come from (`FILE:LINE`), so a point the spec cannot render
    is named before any training starts (PairError; a line that is no decision point, DecisionFileError); the
    pairs file is left unwritten then."""
    renderer = DecisionRenderer(spec)
    pairs = [pair for where, decision in decisions
             if (pair := _pair(decision, renderer, label, where)) is not None]
    counts: dict[str, int] = {}
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        for pair in pairs:
            counts[pair["split"]] = counts.get(pair["split"], 0) + 1
            fh.write(json.dumps(pair, sort_keys=True) + "\n")
    return counts
