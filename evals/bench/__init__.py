"""Micro-benchmarks kept in the repo and run on demand (`python -m coopgraph.evals.bench.<name>`)."""
