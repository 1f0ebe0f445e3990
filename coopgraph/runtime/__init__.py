"""What one episode needs: the episode loop, teams from names, the graph agent, the launch of a run or a fork with
its manifest and usage, the one result type, forking and replaying a decision (docs/architecture.md).

Nothing is imported here, so importing a module of the runtime loads only what that module needs.
"""
