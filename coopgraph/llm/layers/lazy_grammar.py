"""Ask an answer-only choice without its grammar first, and send the grammar only when the reply needs it.

llama.cpp checks a grammar against every token of the vocabulary at every step, which for Gemma's 262k tokens costs
more than the answer itself. At temperature 0 a reply that is already one option (or one option and then its note,
which is cut) is what the grammar would have produced (`settled_answer`); anything else is asked again with the
grammar, from the server's cached prompt. The factory stacks this layer for llama.cpp at temperature 0 only.
"""

from __future__ import annotations

from dataclasses import replace

from coopgraph.llm.constraints import NOTE_SEPARATOR, settled_answer
from coopgraph.llm.interface import ChatRequest, Completion
from coopgraph.llm.layers.base import Wrapper
from coopgraph.llm.text import strip_control

#: An answer-only reply is one line, and ends where a copied option's note would begin.
FREE_STOP = ["\n", NOTE_SEPARATOR]


def asks_lazily(request: ChatRequest) -> bool:
    """Only greedy answer-only choices: a reasoning line or sampling would change what the grammar allows."""
    constraint = request.constraint
    return constraint is not None and constraint.reasoning_chars == 0 and not request.options.get("temperature")


class LazyGrammar(Wrapper):
    """Sends a choice's grammar only when the unconstrained reply is not already one of its options."""

    def complete(self, request: ChatRequest) -> Completion:
        constraint = request.constraint
        if constraint is None or not asks_lazily(request):
            return self.inner.complete(request)
        free = self.inner.complete(replace(request, constraint=None, options={**request.options, "stop": FREE_STOP}))
        settled = settled_answer(constraint, free.raw_text) if free.finished else None
        if settled is not None:
            return replace(free, text=strip_control(settled), raw_text=settled, grammar="unneeded",
                           free_response=free.text if free.raw_text != settled else None)
        constrained = self.inner.complete(request)
        return replace(constrained, completion_tokens=constrained.completion_tokens + free.completion_tokens,
                       latency_s=constrained.latency_s + free.latency_s, free_response=free.text)
