"""coopgraph.envs: text environments following PettingZoo's ParallelEnv API, made by name.

`make("cwah", episode="test/0", num_agents=2)` builds Communicative Watch-And-Help; `"cwah-noisy"` adds
dummy objects (`noise=10` by default). Environments never import graphs, nodes, prompts, memory or evals.
"""

from coopgraph.envs.registry import UnknownEnvironmentError, agent_kit, make, register, register_kit, registered

register("cwah", "coopgraph.envs.cwah.env:make_cwah")
register("cwah-noisy", "coopgraph.envs.cwah.env:make_cwah_noisy")
register_kit("cwah", "coopgraph.envs.cwah.kit:make_kit")
register_kit("cwah-noisy", "coopgraph.envs.cwah.kit:make_kit")

__all__ = ["UnknownEnvironmentError", "agent_kit", "make", "register", "register_kit", "registered"]
