"""`vllm:MODEL`: a vLLM server (OPENAI_BASE_URL, else 127.0.0.1:8000), whose guided decoding keeps a choice to one
listed option with a regular expression."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coopgraph.llm.backends.base import Capabilities
from coopgraph.llm.backends.openai import OpenAICompatible

if TYPE_CHECKING:
    from coopgraph.llm.constraints import ChoiceConstraint


class VLLMBackend(OpenAICompatible):
    name = "vllm"
    forms = ("vllm:MODEL",)
    capabilities = Capabilities(constraint="regex")

    def constrain(self, constraint: ChoiceConstraint) -> dict[str, Any]:
        from coopgraph.llm.constraints import regex

        return {"extra_body": {"guided_regex": regex(constraint)}}


VLLM = VLLMBackend()
