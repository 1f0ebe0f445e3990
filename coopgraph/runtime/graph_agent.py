"""A team member driven by a graph spec: one compiled-graph invocation per environment step.

The graph perceives every step and decides only when it has no plan (or, if its spec says so, when a partner
has just spoken); the skill book turns the plan into primitive actions. What the agent carries from step to
step lives in the graph's channels on the agent's own thread, saved by a LangGraph checkpointer once per step
(in memory unless the run gives a saver), and the trace names each step's checkpoint so `coopgraph replay`
and `coopgraph fork` can restore it. The agent shares nothing with partners but the environment.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coopgraph.envs import agent_kit
from coopgraph.envs.protocol import WAIT, AgentInfo, Observation, PrimitiveAction
from coopgraph.graphs.compiler import compile_spec
from coopgraph.graphs.loader import LoadedSpec, load_spec
from coopgraph.graphs.state_schema import spec_keys
from coopgraph.memory.agent_memory import AgentMemory
from coopgraph.memory.episodic import EpisodicMemory
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.state import (
    BELIEF,
    CHANNELS,
    EPISODIC,
    PLAN,
    VECTOR_LOG,
    RunningPlan,
    memory_view,
    step_start,
)
from coopgraph.record.checkpoints import memory_saver, saver_file

if TYPE_CHECKING:  # importing the agent loads no LLM stack; whoever builds one has imported it already
    from coopgraph.llm.client import CoopLM


class GraphAgent:
    """Implements the seam's `TeamMember` protocol with a compiled, checkpointed LangGraph graph; it waits on a
    model (`decides_concurrently`), samples when its temperature is above 0, reports its LLM usage and closes its
    vector store."""

    def __init__(self, spec: str | Path | LoadedSpec, *, lm: CoopLM, name: str | None = None,
                 vector_memory: bool | None = None, checkpointer: Any = None, graph: Any = None) -> None:
        """`lm`: a `CoopLM` (`make_lm`, or `scripted_lm` in tests), because each episode runs on a sibling of it
        (`with_tracer`) that writes this agent's trace and counts this agent's usage; any other LM is refused
        here rather than silently sharing its trace and counts.

        `graph`: a graph compiled with a checkpointer, shared by team members of one spec (each agent runs on
        its own thread); else one is compiled with `checkpointer` (LangGraph's in-memory saver by default)."""
        from coopgraph.llm.client import CoopLM  # already imported by whoever built `lm`

        if not isinstance(lm, CoopLM):
            raise TypeError(f"GraphAgent needs a CoopLM (make_lm or coopgraph.testing.scripted_lm), not "
                            f"{type(lm).__name__}: each episode gives the agent its own trace and usage through "
                            "CoopLM.with_tracer")
        self.loaded = spec if isinstance(spec, LoadedSpec) else load_spec(spec)
        if graph is not None and getattr(graph, "checkpointer", None) is None:
            raise ValueError("a shared graph must be compiled with a checkpointer (compile_spec(..., checkpointer=))")
        self.checkpointer = graph.checkpointer if graph is not None else checkpointer or memory_saver()
        self.graph = graph or compile_spec(self.loaded, checkpointer=self.checkpointer)
        self.checkpoint_file = saver_file(self.checkpointer)  # named in the trace, for replay and fork
        self.name = name or self.loaded.spec.name
        self.lm = lm
        self.model_seed: int | None = None  # this agent's model seed in the run (set by the runner before reset)
        settings = self.loaded.spec.agent
        self.vector_memory = settings.vector_memory if vector_memory is None else vector_memory
        self.keys = spec_keys(self.loaded)  # the graph's state: what its nodes declare, plus the runner's
        self.channels = tuple(name for name, declared in self.keys.items() if declared.persists)
        self.tracer: Any = None
        self.resources: AgentResources | None = None
        self.thread_id = ""
        self.steps = 0  # graph invocations so far in this episode
        self.decisions = 0  # invocations in which the planner chose (the `--decision N` a replay names)
        self._state: dict[str, Any] = {}
        self._seed_channels: dict[str, Any] | None = None

    @property
    def decides_concurrently(self) -> bool:
        """Whether the runner may run this agent's step on a thread beside its partners' (issue 37): yes over a
        model server or the embedded model, not over an in-process fake, whose scripted replies would follow
        the order in which partners sharing it happen to call."""
        return self.lm.backend != "fake"

    @property
    def temperature(self) -> float:
        """The temperature this agent asks at: its spec's `llm:` block, else its LLM setting's (0 when unsaid)."""
        sampling = self.loaded.spec.llm.temperature
        if sampling is not None:
            return float(sampling)
        return float(self.lm.settings_public.get("temperature") or 0.0)

    @property
    def samples(self) -> bool:
        """Whether its answers vary by themselves: it asks at a temperature above 0."""
        return self.temperature != 0

    def llm_usage(self) -> dict[str, float] | None:
        """This agent's LLM calls answered, tokens, failed calls (`llm_errors`, after retries), calls an open circuit
        refused (`llm_refused`: the server had stopped answering) and questions that fell back for want of a model
        (`llm_fallbacks`) in its episode; None before its first `reset`."""
        if self.resources is None:
            return None
        u = self.resources.lm.usage
        return {"llm_calls": u.calls, "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                "cache_hits": u.cache_hits, "llm_seconds": round(u.latency_s, 2), "llm_errors": u.errors,
                "llm_refused": u.refused, "llm_fallbacks": u.fallbacks}

    def close(self) -> None:
        """Close the vector store of its episode (Chroma's client), if it kept one."""
        memory = self.resources.memory if self.resources is not None else None
        if memory is not None and memory.vector is not None:
            memory.vector.close()

    def set_tracer(self, tracer: Any) -> None:
        self.tracer = tracer
        if self.resources is not None:
            self.resources.tracer = tracer
            self.resources.lm = self.resources.lm.with_tracer(tracer)

    @property
    def config(self) -> dict[str, Any]:
        """The LangGraph config of this agent's thread."""
        return {"configurable": {"thread_id": self.thread_id}}

    @property
    def memory(self) -> AgentMemory | None:
        """The agent's memory as of its last step (a view over the graph's channels)."""
        if BELIEF not in self._state:
            return self.resources.memory if self.resources is not None else None
        return memory_view(self._state, self.resources.memory.vector if self.resources and
                           self.resources.memory else None)

    def commit_memory(self) -> None:
        """Carry changes made to `memory` between steps (a test or notebook setting up a situation) into the
        next step: its input writes the channels anew, so that step starts from them and its checkpoint saves
        them; without it the next step starts from the last saved checkpoint."""
        if not self._state:
            raise RuntimeError("commit_memory needs a step taken first (the channels exist from the first step)")
        changed = {name: self._state[name] for name in self.channels if self._state.get(name) is not None}
        self._seed_channels = {**(self._seed_channels or {}), **changed}

    def restore(self, values: dict[str, Any], *, steps: int = 0, decisions: int = 0) -> None:
        """Continue, after `reset`, from a saved checkpoint's channel values on a fresh thread: the next `act` is
        the step after the one that checkpoint ended (the vector store is rebuilt from its log)."""
        if self.resources is None or self.resources.memory is None:
            raise RuntimeError("GraphAgent.restore needs reset first (it rebuilds the world's kit)")
        missing = [name for name in self.channels if values.get(name) is None]
        if missing:
            raise KeyError(f"the checkpoint lacks channels {missing} of spec {self.loaded.spec.name!r}; "
                           "was it saved by another wiring? (pass the run's own spec)")
        restored = {name: values[name] for name in self.channels}
        vector = self.resources.memory.vector
        if vector is not None:
            for batch in restored[VECTOR_LOG].batches:
                vector.add_many(batch)
        self.resources.memory.semantic = restored[BELIEF]
        self._seed_channels = restored
        self.steps, self.decisions = steps, decisions

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        env_name = env_info.env
        kit = agent_kit(env_name, env_info)
        settings = self.loaded.spec.agent
        if self.resources is not None and self.resources.memory is not None:
            self.resources.memory.close()
        vector = None
        if self.vector_memory:
            from coopgraph.memory.vector_store import VectorMemory

            vector = VectorMemory()
        memory = AgentMemory(semantic=kit.belief, procedural=kit.skillbook, vector=vector,
                             episodic=EpisodicMemory(max_actions=settings.actions_kept,
                                                     max_messages=settings.messages_kept))
        agents = list(env_info.agents)
        member = agents.index(agent_id) if agent_id in agents else 0
        lm = self.lm.for_member(member)  # its own server slot
        if self.model_seed is not None:
            lm = lm.with_seed(self.model_seed)  # its own draws in this replicate
        lm = lm.with_tracer(self.tracer)  # its own trace and usage counts
        self.resources = AgentResources(
            agent_id=agent_id, env=kit.prompt_env, lm=lm, memory=memory, affordances=kit.affordances, kit=kit,
            tracer=self.tracer, agents=agents, seed=seed,
            belief_factory=lambda: agent_kit(env_name, env_info).belief,
        )
        self.thread_id = f"{agent_id}-{uuid.uuid4().hex[:12]}"
        self.steps = self.decisions = 0
        self._state = {}
        seeded: dict[str, Any] = {BELIEF: memory.semantic, EPISODIC: memory.episodic,
                                  PLAN: RunningPlan(skillbook=kit.skillbook)}
        for name in self.channels:
            factory = CHANNELS[name].factory
            if name not in seeded and factory is not None:
                seeded[name] = factory()
        self._seed_channels = seeded

    def act(self, observation: Observation) -> PrimitiveAction:
        if self.resources is None:
            raise RuntimeError("GraphAgent.act called before reset")
        update = step_start(self.keys, observation.time, observation)
        if self._seed_channels is not None:  # the first step (or one after commit_memory) brings channel values
            update.update(self._seed_channels)
            self._seed_channels = None
        self._state = self.graph.invoke(update, config=self.config, context=self.resources, durability="exit")
        self.steps += 1
        decided = bool(self._state.get("decisions"))
        self.decisions += decided
        if self.tracer is not None:
            snapshot = self.checkpointer.get_tuple(self.config)  # type: ignore[arg-type]  # a RunnableConfig
            checkpoint_id = snapshot.config["configurable"]["checkpoint_id"] if snapshot is not None else None
            self.tracer.event("checkpoint", step=observation.time, call=self.steps, thread_id=self.thread_id,
                              checkpoint_id=checkpoint_id, decision=self.decisions if decided else None,
                              file=self.checkpoint_file)
        return self._state.get("action") or WAIT
