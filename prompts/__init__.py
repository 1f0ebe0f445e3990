"""coopgraph.prompts"""
