"""Would a search on information improve a Solo Whist network, and does the network learn what it finds?

    python experiments/solo_pimc_probe.py --checkpoint vint_env/baselines/solo_whist.pt --deals 1000 \\
        --samples 16 --seed 51 --distil-out runs/solo_pimc.pt

The network plays each deal four times, once in each seat against the engine's compiled rule bots (as
``vint-eval match --b rule`` seats it).  At each of its decisions with a choice (calls and cards):

- **true values**: each legal action forked on the real deal and played out by the network and the bots
  (``action_values(..., samples=0)``, :mod:`vint_env.training.engine_values`);
- **search values**: the same forks on ``--samples`` deals of the cards the seat cannot see, dealt again
  consistently with its view (``samples=K``, :mod:`vint_env.training.redeal`): a PIMC search whose
  rollouts are the network's own play.

The search's choice (its best action where it beats the network's by more than a margin) judged on the
real deal, ``v_true[search] - v_true[network]`` averaged over decisions, is the search's first-order gain:
what taking its choice at that decision alone is worth, the rest of the deal played as before.  With
``--distil-out`` the network is then trained (cross-entropy) on the search's choices of 90% of the deals
and the same first-order gain measured for the trained network on the other 10%: whether it learnt the
search's choices or only its noise.  Measured in docs/baselines.md (the Solo Whist network, tried).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from vint_env import games
from vint_env.agents.learned.policy import load_checkpoint, network_from_checkpoint, save_checkpoint
from vint_env.cards import NUM_CARDS
from vint_env.training.engine_values import action_values

MARGINS = (0.0, 0.25, 0.5, 1.0, 2.0)


def gains(true: np.ndarray, chosen: np.ndarray, mine: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of ``true[chosen] - true[mine]`` over the rows."""
    rows = np.arange(len(mine))
    diff = true[rows, chosen] - true[rows, mine]
    return float(diff.mean()), float(diff.std() / max(1, len(diff)) ** 0.5)


def search_choice(search: np.ndarray, mine: np.ndarray, margin: np.ndarray) -> np.ndarray:
    rows = np.arange(len(mine))
    best = np.where(np.isnan(search), -np.inf, search).argmax(1)
    ahead = search[rows, best] - search[rows, mine]              # NaN where every re-deal failed
    return np.where(np.nan_to_num(ahead, nan=-np.inf) > margin, best, mine)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", default="vint_env/baselines/solo_whist.pt")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--seed", type=int, default=51, help="training deals (never an evaluation seed)")
    p.add_argument("--distil-out", help="train the network on the search's choices and write it here")
    p.add_argument("--card-margin", type=float, default=0.25)
    p.add_argument("--call-margin", type=float, default=1.0)
    p.add_argument("--epochs", type=int, default=3)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    game = games.get("solo_whist")
    ckpt = load_checkpoint(args.checkpoint, game=game)
    net = network_from_checkpoint(ckpt)
    common = dict(opponents="rule", decisions="all", batch=64, say=print)
    true = action_values(net, game, args.seed, args.deals, samples=0, **common)
    search = action_values(net, game, args.seed, args.deals, samples=args.samples, **common)
    assert np.array_equal(true.actions, search.actions)          # the same decisions, row by row
    calls = true.masks[:, NUM_CARDS:].any(1)
    mine = true.actions
    print(f"{len(mine)} decisions ({calls.sum()} calls) on {args.deals} deals, {args.samples} deals a search")
    for name, rows in (("cards", ~calls), ("calls", calls)):
        for m in MARGINS:
            chosen = search_choice(search.values[rows], mine[rows], np.full(rows.sum(), m))
            mean, se = gains(true.values[rows], chosen, mine[rows])
            print(f"  {name}, margin {m:4.2f}: first-order gain {mean:+.4f} +- {se:.4f} a decision, "
                  f"search differs on {np.mean(chosen != mine[rows]):.3f}")
    if not args.distil_out:
        return 0
    target = search_choice(search.values, mine, np.where(calls, args.call_margin, args.card_margin))
    held = true.deal_ids % 10 == 9
    train, test = np.flatnonzero(~held), np.flatnonzero(held)
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    masks = torch.from_numpy(true.masks)
    rng = np.random.default_rng(0)

    def logits(idx):
        return net.policy_logits(torch.from_numpy(true.obs(idx))).masked_fill(~masks[idx], -1e9)

    for epoch in range(args.epochs):
        order = rng.permutation(train)
        for s in range(0, len(order), 512):
            idx = order[s:s + 512]
            loss = torch.nn.functional.cross_entropy(logits(idx), torch.from_numpy(target[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            now = logits(test).argmax(1).numpy()
        for name, rows in (("cards", ~calls[test]), ("calls", calls[test])):
            mean, se = gains(true.values[test][rows], now[rows], mine[test][rows])
            print(f"  epoch {epoch}, held-out {name}: first-order gain of the trained network {mean:+.4f} +- {se:.4f}, "
                  f"differs from the start on {np.mean(now[rows] != mine[test][rows]):.3f}")
    saved = {k: v for k, v in ckpt.items() if k not in ("format", "version", "tensor_sha256", "trainer")}
    saved["model"] = {k: v.detach().clone() for k, v in net.state_dict().items()}
    save_checkpoint(args.distil_out, saved)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
