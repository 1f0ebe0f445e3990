"""coopgraph.nodes"""
