"""coopgraph.envs: text environments following PettingZoo's ParallelEnv API, made by name.

Each world registers here, in one block: the world, its agent kit (capabilities and prompt templates), its
scripted partners (in its own `experts/` folder) and, where it has them, its decision-data hooks, all as lazy
paths, so naming a world imports none.

`make("cwah", episode="test/0", num_agents=2)` builds Communicative Watch-And-Help; `"cwah-noisy"` adds
dummy objects (`noise=10` by default); `"toyhouse"` is the small second world of `coopgraph.testing`;
`make("overcooked", layout="cramped_room", horizon=400)` is Overcooked-AI with LLM-Co's layouts and rules;
`make("tdw-mat", episode="train/0")` is TDW-MAT as text, in frames; `make("collab-capture")` and
`make("collab-escape")` are LLM-Co's two room games.
Environments never import graphs, nodes, prompts, memory or evals.
"""

from coopgraph.envs.partners import (
    UnknownPartnerError,
    make_partner,
    partner_info,
    partners,
    register_partner,
)
from coopgraph.envs.registry import (
    KitInfo,
    TeamTooLargeError,
    UnknownEnvironmentError,
    agent_kit,
    check_team_size,
    decision_data,
    decision_worlds,
    default_episode,
    kit_info,
    kits,
    make,
    register,
    register_decision_data,
    register_kit,
    registered,
    team_limit,
)

register("cwah", "coopgraph.envs.cwah.env:make_cwah", default_episode="test/0", max_agents=4)
register("cwah-noisy", "coopgraph.envs.cwah.env:make_cwah_noisy", default_episode="test/0", max_agents=4)
CWAH_CAPABILITIES = ("objects", "goals", "rooms", "spatial", "containers", "partners", "news", "look_values",
                     "observed_actions")
register_kit("cwah", "coopgraph.envs.cwah.kit:make_kit", capabilities=CWAH_CAPABILITIES, prompt_env="cwah")
register_kit("cwah-noisy", "coopgraph.envs.cwah.kit:make_kit", capabilities=CWAH_CAPABILITIES, prompt_env="cwah")
CWAH_WORLDS = ("cwah", "cwah-noisy")
register_partner("mhp", "coopgraph.envs.cwah.experts.mhp:MHPAgent", worlds=CWAH_WORLDS, options={"name": "mhp"})
register_partner("mhp-silent", "coopgraph.envs.cwah.experts.mhp:MHPAgent", worlds=CWAH_WORLDS,
                 options={"name": "mhp-silent", "communicate": False})
register_partner("oracle", "coopgraph.envs.cwah.experts.oracle_member:OracleAgent", worlds=CWAH_WORLDS)
register_decision_data("cwah", "coopgraph.evals.decisions:HOOKS")
register_decision_data("cwah-noisy", "coopgraph.evals.decisions:HOOKS")
# The toyhouse (a small second world shipped in coopgraph.testing); lazy strings, so envs never imports testing.
register("toyhouse", "coopgraph.testing.toyhouse.env:make_toyhouse", default_episode="toyhouse/0", max_agents=4)
# The toyhouse publishes no estimate of what a look finds (its expert keeps its own), so it lacks `look_values`.
TOYHOUSE_CAPABILITIES = ("objects", "goals", "rooms", "spatial", "containers", "partners", "news",
                         "observed_actions")
register_kit("toyhouse", "coopgraph.testing.toyhouse.kit:make_kit", capabilities=TOYHOUSE_CAPABILITIES,
             prompt_env="toyhouse")
register_partner("toyhouse-expert", "coopgraph.testing.toyhouse.expert:HouseExpert", worlds=("toyhouse",))
# Overcooked-AI (LLM-Co's world): a kitchen of numbered places, not rooms of objects, so its belief declares only
# `layout` (the kitchen's places and who reaches them, for LLM-Co's layout description); nodes that need rooms,
# objects or partners' intents are refused there at load time.
register("overcooked", "coopgraph.envs.overcooked.env:make_overcooked", default_episode="cramped_room",
         max_agents=2)
OVERCOOKED_CAPABILITIES: tuple[str, ...] = ("layout",)
register_kit("overcooked", "coopgraph.envs.overcooked.kit:make_kit", capabilities=OVERCOOKED_CAPABILITIES,
             prompt_env="overcooked")
register_partner("greedy", "coopgraph.envs.overcooked.experts.cooks:GreedyCook", worlds=("overcooked",))
register_partner("random", "coopgraph.envs.overcooked.experts.cooks:RandomCook", worlds=("overcooked",))
register_decision_data("overcooked", "coopgraph.evals.overcooked_decisions:HOOKS")
# TDW-MAT (CoELA's second world) as text: frames as time, rooms and doors from ThreeDWorld's floorplans.
register("tdw-mat", "coopgraph.envs.tdw_mat.env:make_tdw_mat", default_episode="train/0", max_agents=4)
TDW_MAT_CAPABILITIES = ("objects", "goals", "rooms", "spatial", "containers", "partners", "news", "observed_actions")
register_kit("tdw-mat", "coopgraph.envs.tdw_mat.kit:make_kit", capabilities=TDW_MAT_CAPABILITIES,
             prompt_env="tdw-mat")
register_partner("rhp", "coopgraph.envs.tdw_mat.experts.rhp:RHPAgent", worlds=("tdw-mat",))
register_partner("tdw-oracle", "coopgraph.envs.tdw_mat.experts.oracle_member:TDWOracleAgent", worlds=("tdw-mat",))
register_decision_data("tdw-mat", "coopgraph.evals.tdw_decisions:HOOKS")
# LLM-Co's Collab Capture and Collab Escape: rooms by number, no objects; the belief offers the fixed map as
# `layout` facts (LLM-Co's game description names every room's links) and nothing else.
register("collab-capture", "coopgraph.envs.collab.capture_env:make_capture", default_episode="test/0",
         max_agents=2)
register("collab-escape", "coopgraph.envs.collab.escape_env:make_escape", default_episode="test/0",
         max_agents=2)
COLLAB_CAPABILITIES: tuple[str, ...] = ("layout",)
register_kit("collab-capture", "coopgraph.envs.collab.kit:make_capture_kit", capabilities=COLLAB_CAPABILITIES,
             prompt_env="collab-capture")
register_kit("collab-escape", "coopgraph.envs.collab.kit:make_escape_kit", capabilities=COLLAB_CAPABILITIES,
             prompt_env="collab-escape")
COLLAB_WORLDS = ("collab-capture", "collab-escape")  # one planner and one random player serve both games
register_partner("collab-planner", "coopgraph.envs.collab.experts.planners:PlannerPlayer", worlds=COLLAB_WORLDS)
register_partner("collab-random", "coopgraph.envs.collab.experts.planners:RandomPlayer", worlds=COLLAB_WORLDS)

__all__ = ["KitInfo", "TeamTooLargeError", "UnknownEnvironmentError", "UnknownPartnerError", "agent_kit",
           "check_team_size", "decision_data", "decision_worlds", "default_episode", "kit_info", "kits", "make",
           "make_partner", "partner_info", "partners", "register", "register_decision_data", "register_kit",
           "register_partner", "registered", "team_limit"]
