"""Node families: every module here registers nodes (`@node`, `@router`) under its family's names
(`planning.choose_action`, `memory.retrieve`, ...); `coopgraph.nodes.library` imports them all. The helpers they
share (registry, state keys, programs, parsing, method notes) stay in `coopgraph.nodes` itself."""
