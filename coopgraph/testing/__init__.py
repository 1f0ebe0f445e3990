"""Test kit for users and for coopgraph's own tests: a scripted chat model, a small real world, conformance checks.

In the spirit of PettingZoo's public conformance tests, these let a user test their own node, spec or
environment without a model server: `scripted_lm` fakes the LLM, the `toyhouse` world (registered as
`coopgraph.envs.make("toyhouse")`, with its kit and the `toyhouse-expert` baseline) gives specs a second world
to run in, `TextSession` drives it from action texts, `check_spec_file` checks a spec, `check_kit` a world's
agent kit, `check_world` a world against the `World` protocol, `check_member` a team member (a scripted
partner by name) against the `TeamMember` protocol and `check_saved_channels` that a graph agent's nodes
return every channel they change;
`sampling_server` (its own module, imported when used) stands in for a seeded model server.
"""

from coopgraph.testing.channel_checks import ChannelNotReturned, check_saved_channels
from coopgraph.testing.chat import ScriptedChatModel, scripted_lm
from coopgraph.testing.checks import check_spec_file
from coopgraph.testing.kit_checks import KitReport, check_kit
from coopgraph.testing.member_checks import MemberReport, check_member
from coopgraph.testing.toyhouse.session import TextSession
from coopgraph.testing.world_checks import WorldReport, check_world

__all__ = ["ChannelNotReturned", "KitReport", "MemberReport", "ScriptedChatModel", "TextSession", "WorldReport",
           "check_kit", "check_member", "check_saved_channels", "check_spec_file", "check_world", "scripted_lm"]
