"""toyhouse: a small second world for coopgraph, in the spirit of PettingZoo's test environments.

Three rooms in a row on a grid of cells, one-handed agents (one or two), items to fetch and deliver onto
surfaces or into containers, chests to open first, time in ticks. It is a real `ParallelEnv` with its own
agent kit, registered as `toyhouse` (`coopgraph.envs.make("toyhouse", episode="toyhouse/1")`), small enough to
read in one sitting and different enough from C-WAH to catch a household assumption. The rules are in
`docs/envs/toyhouse.md`.

Modules: `grid` (geometry), `episodes` (the shipped episodes, `episodes.json`), `world` (state and rules),
`observe`, `env` (the ParallelEnv), `belief`, `estimates`, `affordances`, `skillbook`, `messages` (reader),
`news` (reporter), `kit`, `expert` (`toyhouse-expert`), `session` (one agent driven by action texts).
"""

from coopgraph.testing.toyhouse.env import ToyhouseEnv, make_toyhouse
from coopgraph.testing.toyhouse.episodes import UnknownEpisodeError, episode_names, load_episode

__all__ = ["ToyhouseEnv", "UnknownEpisodeError", "episode_names", "load_episode", "make_toyhouse"]
