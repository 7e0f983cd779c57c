"""Agent spec ``bidder:PATH``: a Vint auction learnt from the outcomes of its calls.

The checkpoint holds a **call-value network**: from the seat's observation it gives, for every call,
the points its side is expected to end the deal with (in units of ``value_unit`` points) if it makes
that call.  The agent makes the call of highest value among its *candidate calls* (pass, and in each
strain the bids from the lowest legal level up to ``max_jump`` levels above it), chosen by the
network alone.

Its cards are played by what the checkpoint names in ``bidder["cards"]``:

- ``"rule"``: the Vint rule bot's card play (the bidder was trained with it: the card play is fixed);
- ``"network"``: the card network stored in the checkpoint (``card_network``: a network spec and its
  weights, e.g. a clone of the rule bot's card play), played greedily: no rule bot is consulted.

``bidder:PATH,cards=rule`` plays the rule bot's cards whatever the checkpoint holds (so the auction's
share of a standalone agent's result can be measured on its own); ``,margin=POINTS`` replaces the
checkpoint's ``bidder["margin"]`` (the points a bid must be worth above passing, default 0).  A checkpoint is the PPO
checkpoint format (:mod:`vint_env.agents.learned.policy`, with its checks) plus the ``bidder`` entry;
``network:PATH`` refuses it.  Made by ``python -m training.vint_bidder`` (docs/training.md).
"""

from __future__ import annotations

import numpy as np
import torch

from ... import games
from ...cards import NUM_CARDS   # actions 0..51 are the cards
from ...rules.vint import BID_BASE, NUM_ACTIONS, NUM_BIDS, PASS
from ..base import Agent, legal_actions
from ..spec import AgentSpec, kind

CARD_PLAYERS = kind("bidder").option("cards").allowed
STRAINS = 5


def candidate_calls(action_mask, max_jump: int | None) -> np.ndarray:
    """[A] bool: the calls the bidder chooses among: the legal pass and, in each strain, the legal bids
    from the strain's lowest legal level up to ``max_jump`` levels above it (``None``: every legal call)."""
    mask = np.asarray(action_mask).astype(bool)
    out = np.zeros(len(mask), dtype=bool)
    out[PASS:NUM_ACTIONS] = mask[PASS:NUM_ACTIONS]
    if max_jump is None:
        return out
    bids = np.flatnonzero(mask[BID_BASE:BID_BASE + NUM_BIDS])
    if bids.size:
        lowest = bids[0] // STRAINS + 1         # every strain is legal from this level or the next one
        for b in bids:
            level, strain = b // STRAINS + 1, b % STRAINS
            strain_low = lowest if (lowest - 1) * STRAINS + strain >= bids[0] else lowest + 1
            if level > strain_low + max_jump:
                out[BID_BASE + b] = False
    return out


def best_call(values: np.ndarray, candidates: np.ndarray) -> int:
    """The candidate call of highest value (a NaN value counts as the lowest)."""
    if not candidates.any():
        raise ValueError("no candidate call: is this an auction decision?")
    v = np.where(np.isnan(values), -1e30, values)
    return int(np.argmax(np.where(candidates, v, -np.inf)))


class CallValues:
    """The call-value network as a function of observations: ``values(obs) -> [B, A]`` (points).
    ``call`` makes the candidate call of highest value, a bid's value lowered by ``margin`` points
    (a bid must beat passing by that much: the network's errors, maximised over a dozen calls, would
    otherwise favour bids it overrates)."""

    def __init__(self, network: torch.nn.Module, value_unit: float, margin: float = 0.0):
        self.network = network.eval()
        self.value_unit = float(value_unit)
        self.margin = float(margin)

    @torch.no_grad()
    def values(self, obs: np.ndarray) -> np.ndarray:
        logits, _ = self.network(torch.as_tensor(np.atleast_2d(np.asarray(obs, dtype=np.float32))))
        return logits.numpy() * self.value_unit

    def call(self, observation: dict, max_jump: int | None) -> int:
        cands = candidate_calls(observation["action_mask"], max_jump)
        values = self.values(observation["observation"])[0]
        values[BID_BASE:] -= self.margin
        return best_call(values, cands)


def is_auction(observation: dict) -> bool:
    """A call decision (the legal actions are calls), not a card."""
    return int(legal_actions(observation)[0]) >= NUM_CARDS


class VintBidderAgent(Agent):
    """Calls by a call-value network; cards by ``cards`` (the rule bot, or a card network's agent)."""

    def __init__(self, calls: CallValues, max_jump: int | None, cards: Agent, name: str = "bidder",
                 cards_kind: str = "rule"):
        self.calls = calls
        self.max_jump = max_jump
        self.cards = cards
        self.cards_kind = cards_kind
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        self.cards.reset(seed)

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        if is_auction(observation):
            if self.cards_kind == "rule":
                # The rule bot forgets the last deal's tricks when it sees the auction: keep its memory as
                # it would be if it played alone (its call is not used).
                self.cards.act(observation, env=env, agent=agent)
            return self.calls.call(observation, self.max_jump)
        return int(self.cards.act(observation, env=env, agent=agent))


def _card_agent(ckpt: dict, path: str, cards: str, game: str) -> Agent:
    from .policy import CheckpointError, PPOAgent, network_from_checkpoint
    if cards == "rule":
        return games.get(game).rule_agent()
    entry = ckpt.get("card_network")
    if not isinstance(entry, dict) or not {"network", "model"} <= set(entry):
        raise CheckpointError(f"{path}: bidder cards 'network' needs a 'card_network' entry with 'network' and "
                              f"'model'; this checkpoint has none (play it with bidder:{path},cards=rule)")
    sub = {"network": entry["network"], "model": entry["model"], "obs_size": ckpt["obs_size"],
           "num_actions": ckpt["num_actions"]}
    net = network_from_checkpoint(sub, f"{path} (card network)")
    return PPOAgent(net, ckpt["game"], ckpt["obs_size"], ckpt["num_actions"], greedy=True, name="cards")


def make_bidder(game, spec: AgentSpec, seed: int | None = None) -> VintBidderAgent:
    """The agent of spec ``bidder:PATH[,cards=rule|network][,margin=POINTS]`` (parsed)."""
    return load_bidder(spec.argument, game=game, cards=spec.option("cards"), margin=spec.option("margin"))


def load_bidder(path, game: str = "vint", cards: str | None = None, margin: float | None = None) -> VintBidderAgent:
    """The bidder of checkpoint ``path`` (see the module docstring); ``cards`` and ``margin`` (None: the
    checkpoint's) are the spec's options, checked by their declarations; :class:`CheckpointError` names the
    fault of a checkpoint."""
    from .policy import CheckpointError, load_checkpoint, network_from_checkpoint
    given = AgentSpec("bidder", str(path), (("cards", cards), ("margin", margin)))
    cards, margin_given = given.option("cards"), given.option("margin")
    ckpt = load_checkpoint(path, game=game)
    meta = ckpt.get("bidder")
    if not isinstance(meta, dict) or not {"cards", "max_jump", "value_unit"} <= set(meta):
        raise CheckpointError(f"{path!r} is not a bidder checkpoint (no 'bidder' entry with 'cards', "
                              f"'max_jump' and 'value_unit'): load a network checkpoint with network:PATH")
    if meta["cards"] not in CARD_PLAYERS:
        raise CheckpointError(f"{path!r}: bidder cards must be one of {CARD_PLAYERS}, got {meta['cards']!r}")
    jump = meta["max_jump"]
    if jump is not None and (isinstance(jump, bool) or not isinstance(jump, int) or jump < 0):
        raise CheckpointError(f"{path!r}: bidder max_jump must be None or an integer >= 0, got {jump!r}")
    unit = meta["value_unit"]
    if isinstance(unit, bool) or not isinstance(unit, (int, float)) or not unit > 0:
        raise CheckpointError(f"{path!r}: bidder value_unit must be a number > 0, got {unit!r}")
    margin = meta.get("margin", 0.0)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0:
        raise CheckpointError(f"{path!r}: bidder margin must be a number >= 0 (points), got {margin!r}")
    cards = meta["cards"] if cards is None else cards
    calls = CallValues(network_from_checkpoint(ckpt, path), unit, margin if margin_given is None else margin_given)
    return VintBidderAgent(calls, jump, _card_agent(ckpt, path, cards, game), name=str(given), cards_kind=cards)


__all__ = ["candidate_calls", "best_call", "CallValues", "VintBidderAgent", "load_bidder", "make_bidder",
           "is_auction", "CARD_PLAYERS"]
