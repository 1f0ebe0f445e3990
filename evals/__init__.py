"""coopgraph.evals"""
