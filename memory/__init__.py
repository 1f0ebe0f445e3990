"""coopgraph.memory"""
