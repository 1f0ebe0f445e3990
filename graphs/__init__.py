"""coopgraph.graphs"""
