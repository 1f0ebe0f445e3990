"""Communicative Watch-And-Help (C-WAH): a symbolic, text version of CoELA's household benchmark.

`CWAHEnv` is the environment; `CWAHBelief`, `CWAHAffordances` and `CWAHSkillBook` are what agents use to
track the world, list high-level actions and execute them; `messages` and `news` are the templated messages
agents and the kit exchange; `experts/` holds the scripted partners (MHP, the oracle). Docs: docs/envs/cwah.md.
"""

from coopgraph.envs.cwah.affordances import CWAHAffordances
from coopgraph.envs.cwah.belief import CWAHBelief, KnownObject, PartnerIntent, PartnerState
from coopgraph.envs.cwah.config import CWAHConfig
from coopgraph.envs.cwah.env import CWAHEnv, make_cwah, make_cwah_noisy
from coopgraph.envs.cwah.episode import Episode, load_episode_file, save_episode_file
from coopgraph.envs.cwah.episode_sets import (
    UnknownEpisodeError,
    episode_sets,
    load_episode_set,
    resolve_episode,
)
from coopgraph.envs.cwah.generator import generate_episode
from coopgraph.envs.cwah.layout import FloorPlan
from coopgraph.envs.cwah.metrics import EpisodeMetrics
from coopgraph.envs.cwah.noise import add_noise
from coopgraph.envs.cwah.observation import describe_goal
from coopgraph.envs.cwah.skillbook import CWAHSkillBook

__all__ = [
    "CWAHBelief",
    "CWAHAffordances",
    "CWAHConfig",
    "CWAHEnv",
    "CWAHSkillBook",
    "Episode",
    "EpisodeMetrics",
    "FloorPlan",
    "KnownObject",
    "PartnerIntent",
    "PartnerState",
    "UnknownEpisodeError",
    "add_noise",
    "describe_goal",
    "episode_sets",
    "generate_episode",
    "load_episode_file",
    "load_episode_set",
    "make_cwah",
    "make_cwah_noisy",
    "resolve_episode",
    "save_episode_file",
]
