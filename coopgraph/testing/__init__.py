"""Test kit for users and for coopgraph's own tests: a scripted chat model, a tiny world, spec checks.

In the spirit of PettingZoo's public conformance tests, these let a user test their own node,
spec or environment without a model server.
"""

from coopgraph.testing.chat import ScriptedChatModel, scripted_lm
from coopgraph.testing.checks import check_spec_file
from coopgraph.testing.world import ToyWorld

__all__ = ["ScriptedChatModel", "ToyWorld", "check_spec_file", "scripted_lm"]
