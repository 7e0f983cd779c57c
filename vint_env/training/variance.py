"""What duplicate training buys: the variance of the learner's return a deal, alone and paired, on the same deals.

``python -m training.variance`` prints :func:`return_variance` for a checkpoint (see
:mod:`vint_env.training.duplicate` for the pairing).
"""

from __future__ import annotations

import numpy as np
import torch

from vint_env.games import Game
from vint_env.agents.learned.networks import build_network
from vint_env.agents.registry import load_agent

from .duplicate import check_game, variance_figures
from .seating import learner_sides
from .selfplay import SelfPlayCollector
from .sources import make_game_batch


def return_variance(game: Game, policy=None, opponent: str = "rule", deals: int = 1000, seed: int = 0,
                    env_source: str = "vector", env_kwargs: dict | None = None, num_envs: int = 128) -> dict:
    """The variance of the learner's return a deal (env reward units), alone and paired, on the same deals.

    ``policy``: a network (``build_network``'s; None: a fresh one, which plays nearly at random) playing
    one side (a partnership; a seat in Solo Whist) against ``opponent`` (``rule``, ``random`` or ``self``)
    at pairs of tables; each side the learner played gives its table return and its paired return.  Returns :func:`variance_figures` and
    the means (``return_mean``, ``paired_return_mean``), for at least ``deals`` deals at each table.
    """
    check_game(game)
    num_envs = max(2, min(num_envs, 2 * deals) // 2 * 2)     # pairs of tables, no more than the deals need
    batch = make_game_batch(env_source, game, num_envs, env_kwargs)
    if policy is None:
        torch.manual_seed(seed)
        policy = build_network("mlp", batch.obs_size, batch.num_actions, {"hidden_sizes": [64]})
    policy.eval()
    def bots(kind: str):
        return load_agent(kind, game=game)
    per_game = max(1, -(-deals // (num_envs // 2)))
    steps = per_game * 60                      # a deal is at most ~60 decisions (Vint: 13 x 4 plays + calls)
    sides = learner_sides(game)
    collector = SelfPlayCollector(batch, {opponent: 1.0}, steps, bots, duplicate=True)
    rows_a_deal = 2 * (len(sides) if opponent == "self" else 1)       # rows of a deal: its sides at two tables
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    rows = []
    while sum(len(r) for r in rows) < deals * rows_a_deal:
        rows.append(collector.collect(policy, [], rng, gen).side_returns)
    table = np.concatenate(rows)
    return {**variance_figures(table), "return_mean": float(table[:, 0].mean()),
            "paired_return_mean": float(table[:, 1].mean()), "deals": len(table) // rows_a_deal}
