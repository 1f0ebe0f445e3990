"""The wrappers the factory stacks around a chat model, one concern each (see `coopgraph.llm.factory.build_stack`).

From the inside out: `transport` (the LangChain chat model), `turns` (the embedded model only), `response_cache`
(which cached reply a call read, to evict it), `circuit` (its server's circuit), `lazy_grammar`, `deadline`,
`retry` (backoff and jitter), `usage`, `tracing`.
"""
