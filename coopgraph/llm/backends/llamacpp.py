"""`llamacpp:MODEL`: llama.cpp's server (OPENAI_BASE_URL, else 127.0.0.1:8000), whose GBNF grammar keeps a choice
to one listed option. Checking the grammar costs work over the whole vocabulary at every token, so at temperature
0 an answer-only choice is asked without it first (`lazy_grammar`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.llm.backends.base import Capabilities
from coopgraph.llm.backends.openai import OpenAICompatible

if TYPE_CHECKING:
    from coopgraph.llm.constraints import ChoiceConstraint


class LlamaCppBackend(OpenAICompatible):
    name = "llamacpp"
    forms = ("llamacpp:MODEL",)
    capabilities = Capabilities(constraint="grammar", lazy_grammar=True)

    def constrain(self, constraint: ChoiceConstraint) -> dict[str, Any]:
        from coopgraph.llm.constraints import gbnf

        return {"extra_body": {"grammar": gbnf(constraint)}}


LLAMACPP = LlamaCppBackend()
