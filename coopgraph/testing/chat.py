"""A scripted LangChain chat model: replies from a list or a function, and remembers every prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

if TYPE_CHECKING:
    from coopgraph.llm.client import CoopLM

Reply = str | Exception
Script = Sequence[Reply] | Callable[[list[BaseMessage], dict[str, Any]], Reply]


class ScriptedChatModel(BaseChatModel):
    """Answers from `script` (a list used in order, cycling at the end, or a function of the prompt).

    An Exception in the script is raised, to test retries and invalid-answer handling.
    `calls` keeps (messages, kwargs) for each call so tests can assert on the exact prompt.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Any
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "coopgraph-scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append((list(messages), {**kwargs, **({"stop": stop} if stop else {})}))
        if callable(self.script):
            reply = self.script(list(messages), dict(kwargs))
        else:
            reply = self.script[(len(self.calls) - 1) % len(self.script)]
        if isinstance(reply, Exception):
            raise reply
        prompt_tokens = sum(len(str(m.content).split()) for m in messages)
        message = AIMessage(
            content=reply,
            usage_metadata={"input_tokens": prompt_tokens, "output_tokens": len(reply.split()),
                            "total_tokens": prompt_tokens + len(reply.split())},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def prompts(self) -> list[str]:
        """Each call's messages joined as text, for easy assertions."""
        return ["\n".join(f"{m.type}: {m.content}" for m in msgs) for msgs, _ in self.calls]


def scripted_lm(script: Script, *, tracer: Any = None, cache: Any = None) -> CoopLM:
    """A CoopLM over a ScriptedChatModel, the usual fake for node and graph tests."""
    from coopgraph.llm.client import CoopLM

    return CoopLM(ScriptedChatModel(script=script, cache=cache), backend="fake", model="scripted", tracer=tracer)
