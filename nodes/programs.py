"""The DSPy bridge: each LLM node is a `dspy.Module` whose adapter renders the node's Jinja template.

Both the graph and DSPy optimizers call the same `dspy.Predict`, so the prompt an optimizer tunes
(its instructions and demos) is the prompt that runs. The adapter also owns the answer contract:
a constrained choice parsed leniently, retried when unusable, then reported as invalid instead of
raising, so one bad answer never stops an episode. It talks to the LM through `ChatLM` only: attempts stop
when the LM gives a `stop_reason` (the decision's deadline, or its server's circuit is open), an unusable reply
is `discard`ed so that the retry asks the model again, and a question no attempt got a reply to is reported
(`fell_back`), so a run played on fallbacks says so.

Importing this module costs no dspy (node modules import it, and so do commands that need no model: `graph
validate`, `nodes`): the program classes and the adapter are declared here as `DspyDeferred` classes that
become real `dspy.Module` / `dspy.Adapter` subclasses when the first instance is built, at compile time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.llm.constraints import AnswerFormat, ChoiceConstraint, max_tokens_for
from coopgraph.llm.interface import ChatLM, ChatRequest
from coopgraph.nodes.choice_parsing import answer_mark, parse_choice
from coopgraph.prompts.render import render_messages

if TYPE_CHECKING:
    import dspy


@dataclass(frozen=True)
class ReplyContract:
    """How a choice's reply is worded and read: its line labels, how strictly the answer must match an option,
    and whether coopgraph appends the format to the prompt or the node's template states it."""

    matching: Literal["lenient", "exact"] = "lenient"
    answer_label: str = "Answer"
    reasoning_label: str = "Reasoning"
    reply_format: Literal["appended", "in_prompt"] = "appended"


# ----------------------------------------------------------------------------- dspy classes built on first use
class DspyDeferred(type):
    """Metaclass of classes that subclass a dspy class (`dspy_base`, e.g. "Module") only once one is built.

    Declaring such a class, or subclassing it (a node's own program), imports nothing; building an instance
    builds, once per class, a subclass with the dspy base added last, so the instance is a real dspy object:
    `isinstance(ChoiceProgram(), dspy.Module)` and `isinstance(ChoiceProgram(), ChoiceProgram)` both hold.
    """

    dspy_base: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return with_dspy_base(cls)(*args, **kwargs)


@cache
def _built_meta(base_meta: type) -> type:
    """A metaclass for the built classes: a DspyDeferred (as the declared class is) that constructs like the
    dspy base's own metaclass (dspy.Module's initialises every instance before `__init__`)."""
    return type(f"DspyDeferred{base_meta.__name__}", (DspyDeferred, base_meta), {"__call__": base_meta.__call__})


def _new_built(declared: type) -> Any:
    """An empty instance of the declared class's built class: how pickle and deepcopy rebuild one."""
    built: Any = with_dspy_base(declared)
    return built.__new__(built)


@cache
def with_dspy_base(declared: type) -> type:
    """The real dspy class behind a DspyDeferred class (same name, module and behaviour)."""
    import dspy

    base: type = getattr(dspy, cast(DspyDeferred, declared).dspy_base)
    base_meta: type = type(base)

    def __reduce_ex__(self: Any, protocol: Any) -> Any:  # the built class has no importable name: rebuild by
        reduced = object.__reduce_ex__(self, protocol)  # the declared one, which has
        return (_new_built, (declared,), *cast(tuple, reduced)[2:])

    namespace = {"__module__": declared.__module__, "__qualname__": declared.__qualname__,
                 "__doc__": declared.__doc__, "__reduce_ex__": __reduce_ex__}
    return cast(type, _built_meta(base_meta)(declared.__name__, (declared, base), namespace))


@cache
def signatures() -> dict[str, type[dspy.Signature]]:
    """The two signatures node programs predict with, built at first use (`ChooseOption`, `WriteText`)."""
    import dspy

    class ChooseOption(dspy.Signature):
        """Pick the listed action that moves the team fastest towards its goal."""

        context: dict = dspy.InputField(desc="template variables: goal, state, history")
        options: list[str] = dspy.InputField(desc="the actions that can be taken now")
        reasoning: str = dspy.OutputField(desc="one short line of thought")
        answer: str = dspy.OutputField(desc="the chosen option, exactly as listed")

    class WriteText(dspy.Signature):
        """Write the short text the template asks for."""

        context: dict = dspy.InputField(desc="template variables")
        text: str = dspy.OutputField(desc="the reply")

    for signature in (ChooseOption, WriteText):
        signature.__module__, signature.__qualname__ = __name__, signature.__name__
    return {"ChooseOption": ChooseOption, "WriteText": WriteText}


def __getattr__(name: str) -> Any:
    """`ChooseOption` and `WriteText` stay importable from here (they import dspy when asked for)."""
    if name in ("ChooseOption", "WriteText"):
        return signatures()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ----------------------------------------------------------------------------- asking and checking

def echoes_instructions(reply: str, messages: list[dict[str, str]], window: int = 48) -> bool:
    """True when a free-text reply copies a long stretch of the system prompt (a prompt leak)."""
    system = " ".join(m["content"] for m in messages if m["role"] == "system")
    text = " ".join(reply.split())
    system = " ".join(system.split())
    if len(system) < window:
        return bool(system) and system in text
    return any(system[i:i + window] in text for i in range(0, len(system) - window + 1, window // 2))


class JinjaAdapter(metaclass=DspyDeferred):
    """Formats a signature's inputs through one Jinja template; demos become prior chat turns (a dspy.Adapter)."""

    dspy_base: ClassVar[str] = "Adapter"

    def __init__(
        self,
        template: str,
        *,
        env_name: str | None = None,
        node_name: str = "",
        answer_format: AnswerFormat = "letter",
        reasoning_chars: int = 200,
        max_tokens: int = 120,
        retries: int = 2,
        free_reasoning: bool = False,
        options: dict[str, Any] | None = None,
        reply: ReplyContract | None = None,
    ) -> None:
        super().__init__()
        self.template = template
        self.env_name = env_name
        self.node_name = node_name
        self.answer_format = answer_format
        self.reasoning_chars = reasoning_chars
        self.max_tokens = max_tokens
        self.retries = retries
        self.free_reasoning = free_reasoning
        self.options = dict(options or {})  # the spec's sampling (temperature, top_p), sent with every call
        self.reply = reply or ReplyContract()

    def constraint_for(self, inputs: dict[str, Any]) -> ChoiceConstraint | None:
        if "options" not in inputs:
            return None
        reply = self.reply
        return ChoiceConstraint(tuple(inputs["options"]), self.answer_format, self.reasoning_chars,
                                self.free_reasoning, reply.answer_label, reply.reasoning_label,
                                reply.matching == "exact")

    def _turn(self, instructions: str, inputs: dict[str, Any]) -> list[dict[str, str]]:
        variables = {**inputs.get("context", {}), "instructions": instructions}
        if "options" in inputs:
            variables["options"] = list(inputs["options"])
        messages = render_messages(self.template, variables, self.env_name)
        constraint = self.constraint_for(inputs)
        if constraint is not None and self.reply.reply_format == "appended":
            messages[-1] = {**messages[-1], "content": messages[-1]["content"] + "\n\n" + constraint.instructions()}
        return messages

    def format(
        self, signature: type[dspy.Signature], demos: list[dict[str, Any]], inputs: dict[str, Any]
    ) -> list[dict[str, Any]]:
        messages = self._turn(signature.instructions, inputs)
        shots: list[dict[str, str]] = []
        for demo in demos:
            if not all(k in demo for k in signature.input_fields):
                continue
            # a demo's question; the opening turns are said once
            shots.append(self._turn(signature.instructions, demo)[-1])
            shots.append({"role": "assistant", "content": self._demo_reply(demo)})
        head = len(messages) - 1  # the system message and any opening exchange, then the demos, then the question
        return messages[:head] + shots + messages[head:]

    def _demo_reply(self, demo: dict[str, Any]) -> str:
        constraint = self.constraint_for(demo)
        if constraint is None:
            return str(demo.get("text", ""))
        index, _ = parse_choice(f"Answer: {demo.get('answer', '')}", constraint)
        return constraint.format_answer(index or 0, str(demo.get("reasoning", "")))

    def parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        return {"text": completion.strip()}

    def __call__(
        self,
        lm: ChatLM,
        lm_kwargs: dict[str, Any],
        signature: type[dspy.Signature],
        demos: list[dict[str, Any]],
        inputs: dict[str, Any],
    ) -> list[dict[str, Any]]:
        if not isinstance(lm, ChatLM):
            raise TypeError(f"{type(lm).__name__} is not a coopgraph LM (ChatLM); build one with "
                            "coopgraph.llm.factory.make_lm or coopgraph.testing.scripted_lm")
        messages = self.format(signature, demos, inputs)
        constraint = self.constraint_for(inputs)
        bounded = constraint is not None and not constraint.thinks_freely  # a free thought runs to max_tokens
        max_tokens = max_tokens_for(constraint) if bounded and constraint else self.max_tokens
        started = time.monotonic()
        errors: list[str] = []
        raw = ""
        attempts = 0
        answered = False  # whether any attempt got a reply (usable or not) from the model
        for attempt in range(1, self.retries + 2):
            stop = lm.stop_reason(started) if attempt > 1 else None
            if stop is not None:
                errors.append(stop)
                break
            attempts = attempt
            request = ChatRequest(messages, constraint=constraint, max_tokens=max_tokens,
                                  options={**lm_kwargs, **self.options},
                                  trace={"node": self.node_name, "attempt": attempt}, decision_started=started)
            try:
                done = lm.complete(request)
            except Exception as exc:  # the LM already retried with backoff; count and go on
                errors.append(f"{type(exc).__name__}: {exc}"[:300])
                continue
            answered = True
            raw = done.text
            if constraint is None:
                if echoes_instructions(raw, messages):
                    errors.append("reply repeats the prompt's instructions")
                    lm.discard(done)
                    continue
                if raw.strip():
                    return [{"text": raw.strip(), "valid": True, "attempts": attempt, "raw": raw}]
                errors.append("empty reply")
                lm.discard(done)
                continue
            # a free thought cut off before its `Answer:` line has no answer (its first words are not a letter):
            # as CoELA's reference code does after every thought, ask for the answer alone, the thought kept
            unanswered = (constraint.thinks_freely and not constraint.exact
                          and not answer_mark(constraint.answer_label).search(raw))
            index, reasoning = (None, "") if unanswered else parse_choice(raw, constraint)
            if unanswered:
                index, concluded = self._conclude(lm, messages, raw, constraint, lm_kwargs, attempt, errors)
                reasoning, raw = raw.strip(), f"{raw}\n{concluded}"
            if index is not None:
                return [{
                    "reasoning": reasoning, "answer": constraint.options[index], "index": index,
                    "valid": True, "attempts": attempt, "raw": raw,
                }]
            errors.append(f"unusable answer: {raw[:120]!r}")
            lm.discard(done)
        if not answered:
            lm.fell_back({"node": self.node_name}, errors)
        invalid: dict[str, Any] = {"valid": False, "attempts": attempts, "raw": raw, "errors": errors}
        if constraint is None:
            return [{"text": "", **invalid}]
        return [{"reasoning": "", "answer": "", "index": None, **invalid}]


    def _conclude(self, lm: ChatLM, messages: list[dict[str, Any]], thought: str, constraint: ChoiceConstraint,
                  lm_kwargs: dict[str, Any], attempt: int, errors: list[str]) -> tuple[int | None, str]:
        """One more call after a thought that ran out of tokens: the thought as the model's turn, then the answer
        alone (grammar-bound where the backend has one). Returns the option's index (None: no usable answer)."""
        answer_only = ChoiceConstraint(constraint.options, constraint.answer_format, 0,
                                       answer_label=constraint.answer_label,
                                       reasoning_label=constraint.reasoning_label)
        closing = [*messages, {"role": "assistant", "content": thought},
                   {"role": "user", "content": f"{CONCLUDE}\n{answer_only.instructions()}"}]
        request = ChatRequest(closing, constraint=answer_only, max_tokens=max_tokens_for(answer_only),
                              options={**lm_kwargs, **self.options},
                              trace={"node": self.node_name, "attempt": attempt, "concludes": True})
        try:
            done = lm.complete(request)
        except Exception as exc:  # counted like any failed attempt; the node retries or falls back
            errors.append(f"{type(exc).__name__}: {exc}"[:300])
            return None, ""
        index, _ = parse_choice(done.text, answer_only)
        if index is None:
            lm.discard(done)
        return index, done.text


#: The closing turn after a chain of thought that ran out of tokens before its answer.
CONCLUDE = "Now give only the one best next action."


class ChoiceProgram(metaclass=DspyDeferred):
    """A node's tunable choice: `dspy.Predict(ChooseOption)` rendered through the node's template (a dspy.Module)."""

    dspy_base: ClassVar[str] = "Module"

    def __init__(self, instructions: str | None = None) -> None:
        import dspy

        super().__init__()
        choose = signatures()["ChooseOption"]
        signature = choose.with_instructions(instructions) if instructions else choose
        self.predict = dspy.Predict(signature)

    def forward(self, context: dict[str, Any], options: list[str]) -> dspy.Prediction:
        return self.predict(context=context, options=options)


class TextProgram(metaclass=DspyDeferred):
    """A node's tunable free-text generation (messages, descriptions); a dspy.Module."""

    dspy_base: ClassVar[str] = "Module"

    def __init__(self, instructions: str | None = None) -> None:
        import dspy

        super().__init__()
        write = signatures()["WriteText"]
        signature = write.with_instructions(instructions) if instructions else write
        self.predict = dspy.Predict(signature)

    def forward(self, context: dict[str, Any]) -> dspy.Prediction:
        return self.predict(context=context)


def run_program(program: dspy.Module, adapter: JinjaAdapter, lm: Any, **inputs: Any) -> dspy.Prediction:
    """Run a node's program with its adapter and the agent's LM, without touching global settings."""
    import dspy

    with dspy.context(lm=lm, adapter=adapter):
        return program(**inputs)


class TextParams(BaseModel):
    """Params every free-text LLM node takes."""

    model_config = ConfigDict(extra="forbid")

    max_tokens: int = Field(default=80, ge=1, le=4096, description="longest reply the model may write")
    retries: int = Field(default=2, ge=0, le=10, description="extra tries after an error or unusable reply")


class ChoiceParams(BaseModel):
    """Params every choosing LLM node takes: the small-model hygiene knobs live here."""

    model_config = ConfigDict(extra="forbid")

    answer_format: Literal["letter", "text"] = Field(
        default="letter", description="answer with the option's letter or with its exact text"
    )
    reasoning_chars: int = Field(default=160, ge=0, le=2000, description="one-line thought before answering; 0: none")
    reasoning: Literal["line", "free"] = Field(
        default="line", description="line: one thought line of at most reasoning_chars; free: \"Let's think step by "
        "step\", as many lines as the spec's llm max_tokens allow (CoELA as published); reasoning_chars 0: none")
    retries: int = Field(default=2, ge=0, le=10, description="extra tries after an error or unusable reply")
    fallback: Literal["first", "none", "wait"] = Field(
        default="first", description="what an invalid answer turns into after the retries: the first option, no "
        "action this step, or the option the world groups as waiting (LLM-Co's `wait.`; none when there is none)"
    )
    matching: Literal["lenient", "exact"] = Field(
        default="lenient", description="lenient: a letter, the option's text or a close match; exact: only a listed "
        "option's text (trimmed, case aside), as LLM-Co's parser reads it")
    answer_label: str = Field(default="Answer", min_length=1, max_length=40, pattern=r"^[A-Za-z][A-Za-z ]*$",
                              description="the word the answer line starts with (LLM-Co: Action)")
    reasoning_label: str = Field(default="Reasoning", min_length=1, max_length=40, pattern=r"^[A-Za-z][A-Za-z ]*$",
                                 description="the word a reasoning line starts with (LLM-Co: Explanation)")
    reply_format: Literal["appended", "in_prompt"] = Field(
        default="appended", description="appended: coopgraph states the reply format after the prompt; in_prompt: "
        "the node's template states it itself (LLM-Co's game description does), nothing is added")

    def contract(self) -> ReplyContract:
        return ReplyContract(self.matching, self.answer_label, self.reasoning_label, self.reply_format)


def llm_profile(ctx: Any) -> dict[str, Any]:
    """The public settings of the node's LM, where a profile says how it must be asked."""
    return getattr(ctx.resources.lm, "settings_public", None) or {}


#: The reply cap of a free chain of thought when the spec's `llm:` block sets none (the CoELA paper's 256).
FREE_REASONING_TOKENS = 256


def _max_tokens(params: Any, sampling: Any, free: bool) -> int:
    """A node's reply cap: its own explicit `max_tokens` param, else the spec's `llm.max_tokens`, else its default
    (a free chain of thought: `FREE_REASONING_TOKENS`)."""
    spec_cap = getattr(sampling, "max_tokens", None)
    own = getattr(params, "max_tokens", None)
    if own is not None and "max_tokens" in getattr(params, "model_fields_set", ()):
        return int(own)
    if spec_cap is not None:
        return int(spec_cap)
    return FREE_REASONING_TOKENS if free else int(getattr(params, "max_tokens", 120))


def adapter_for(ctx: Any) -> JinjaAdapter:
    """The adapter that renders this node's template with this node's params, and only those: a profile that
    can be asked one way only (a distilled model) says so, and runs check the spec against it beforehand
    (`graphs/profile_checks.py`), so nothing here bends a spec to a model. The spec's `llm:` block (`ctx.sampling`)
    says how every call is sampled and caps free replies."""
    params = ctx.params
    reasoning = getattr(params, "reasoning_chars", 0)
    answer_format = cast(AnswerFormat, getattr(params, "answer_format", "letter"))
    free = getattr(params, "reasoning", "line") == "free"
    sampling = getattr(ctx, "sampling", None)
    return JinjaAdapter(
        ctx.prompt,
        env_name=ctx.resources.env,
        node_name=ctx.name,
        answer_format=answer_format,
        reasoning_chars=reasoning,
        max_tokens=_max_tokens(params, sampling, free),
        retries=getattr(params, "retries", 2),
        free_reasoning=free,
        options=sampling.options() if sampling is not None else None,
        reply=params.contract() if isinstance(params, ChoiceParams) else None,
    )
