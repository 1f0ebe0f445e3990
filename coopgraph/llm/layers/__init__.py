"""The wrappers the factory stacks around a chat model, one concern each (see `coopgraph.llm.factory.build_stack`).

From the inside out: `transport` (the LangChain chat model), `response_cache` (which cached reply a call read, to
evict it), `lazy_grammar`, `deadline`, `call_limit`, `usage`, `tracing`.
"""
