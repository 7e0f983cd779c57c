"""A Vint auction learnt from the outcomes of its calls, with the card play fixed at the rule bot's.

Every deal is bid by a *behaviour* policy per seat (the rule bot, or a learnt bidder).  At each call
decision every candidate call (:func:`~vint_env.agents.learned.bidder.candidate_calls`) is labelled
with its **outcome**: a copy of the deal takes the call, the auction goes on with the *continuation*
policy of each seat, and the contract it ends in is played by the rule bot in all four seats; the
label is the deal's score for the deciding seat's side as the env scores it (points: its side's
points minus the other side's, premiums included; a pass-out is 0).  The rule bot's card play depends
only on the contract, the declarer and the strains each seat named in the auction, so a deal's card
play is computed once per ``(contract, declarer, strains named)`` (:class:`PlayOutcomes`) however many
calls lead there.

A network regresses these labels from the seat's observation (the ``mlp`` of the trainer, its policy
head read as call values in units of ``value_unit`` points) and bids greedily:
:class:`~vint_env.agents.learned.bidder.VintBidderAgent`.  With the rule bot as behaviour and
continuation, the greedy network is one step of policy improvement over the rule bot's auction;
labelling new deals with the learnt bidder as behaviour and continuation (plus exploration) and
training again is policy iteration (``python -m training.vint_bidder``, docs/training.md).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .. import games
from ..agents.learned.bidder import best_call, candidate_calls
from ..rules.vint import NT, Contract
from ..rules.vint_scoring import score_contract
from .teacher_data import TeacherData, deal_seeds
from .value_targets import clone_env

GAME = games.get("vint")        # the record of the game these bidders play
AGENTS = ("player_0", "player_1", "player_2", "player_3")


def named_strains(calls) -> tuple[frozenset, ...]:
    """The suits each seat (absolute) bid in the auction: what the rule bot's card play reads of it."""
    named = [set(), set(), set(), set()]
    for seat, action in calls:
        if action > 52:
            strain = Contract.from_action(action).strain
            if strain != NT:
                named[seat].add(strain)
    return tuple(frozenset(s) for s in named)


def play_level(level: int) -> int:
    """The contract level as the rule bot's card play reads it: it tells level 1-2 from 3 from 4 and up
    only (trump leads below three, the second hand's ace against four and up; tested against full
    plays), so one play serves every level of a class."""
    return 2 if level < 3 else min(level, 4)


class PlayOutcomes:
    """The deal's score (points of side N/S minus side E/W, as the env scores it) after each contract,
    with the rule bot playing all four seats.  The tricks are played once per ``(strain, declarer,
    strains named, play level)`` (:func:`play_level`) and every contract scored from them by the rules'
    scoring; each new play checks that score against the env's reward for it.

    ``exact=False`` plays once per ``(strain, declarer, play level)``: the strains named (which steer
    the rule bot's leads) are those of the first auction that reached it, an approximation (on 15
    deals, 4% of the labels differ from the exact ones, by 110 points on average against labels of
    6,500) that saves a fifth of the plays."""

    def __init__(self, exact: bool = True):
        self.rule = GAME.rule_agent
        self.exact = exact
        self.tricks: dict = {}
        self.played = 0

    def reset(self) -> None:
        """A new deal."""
        self.tricks = {}

    def key(self, deal) -> tuple:
        named = named_strains(deal.calls) if self.exact else None
        return deal.contract.strain, deal.declarer, named, play_level(deal.contract.level)

    def ns_points(self, env) -> float:
        """``env`` is at the end of its auction (a contract or a pass-out): the N/S score of the deal.
        Plays ``env`` on to its end if its tricks are not known yet."""
        deal = env.deal
        if deal.is_over:                        # passed out: the env has scored it
            return env_points(env)
        key = self.key(deal)
        if key in self.tricks:
            return contract_points(deal, self.tricks[key])
        contract = (deal.hands, deal.contract, deal.declarer, deal.honours)
        got = play_out(env, [self.rule() for _ in AGENTS])
        self.tricks[key] = env.deal.play.side_tricks()
        self.played += 1
        hands, c, declarer, honours = contract
        if contract_points(env.deal, self.tricks[key]) != got:
            raise RuntimeError(f"the rules' score of {c} by seat {declarer} differs from the env's reward {got}")
        return got


def contract_points(deal, side_tricks) -> float:
    """N/S points minus E/W points of ``deal``'s contract with these side tricks (the rules' scoring)."""
    ns, ew = score_contract(deal.hands, deal.contract.level, deal.contract.strain, deal.declarer,
                            tuple(side_tricks), deal.honours)
    return float(ns.total - ew.total)


def play_out(env, agents) -> float:
    """Play ``env`` (in its card play) to the end with ``agents`` (seat order); the N/S points of the deal."""
    while not env.deal.is_over:
        name = env.agent_selection
        env.step(int(agents[AGENTS.index(name)].act(env.observe(name), env=env, agent=name)))
    return env_points(env)


def env_points(env) -> float:
    """The finished deal's points as the env scores them: N/S minus E/W (its ``infos["points"]``)."""
    return float(env.infos[AGENTS[0]]["points"])


def finish_auction(env, bidders) -> None:
    """Call on in ``env`` with ``bidders`` (per seat: ``f(observation, env, name) -> call``) until the
    auction ends."""
    while env.deal.play is None and not env.deal.is_over:
        name = env.agent_selection
        env.step(int(bidders[AGENTS.index(name)](env.observe(name), env, name)))


def call_outcome(env, action: int, bidders, outcomes: PlayOutcomes) -> float:
    """The points of the calling seat's side if it makes ``action`` now (``env`` untouched): the auction
    goes on with ``bidders``, the contract is played by the rule bot."""
    seat = AGENTS.index(env.agent_selection)
    sim = clone_env(env)
    sim.step(int(action))
    finish_auction(sim, bidders)
    ns = outcomes.ns_points(sim)
    return ns if seat % 2 == 0 else -ns


def rule_bidder():
    """The rule bot's calls as a bidder function."""
    bot = GAME.rule_agent()
    return lambda ob, env, name: bot.act(ob, env=env, agent=name)


def network_bidder(calls, max_jump):
    """A call-value network's greedy calls as a bidder function."""
    return lambda ob, env, name: calls.call(ob, max_jump)


def label_deals(seed: int, first: int, count: int, behaviour, continuation, max_jump: int | None,
                epsilon: float = 0.0, exact: bool = True, say=None) -> TeacherData:
    """Deals ``first .. first+count-1`` (env seed from ``(seed, k)`` as the teacher data's): each call
    decision with its candidate calls' outcomes as ``values`` (points; NaN for other actions).

    ``behaviour(k)`` / ``continuation(k)``: the four seats' bidder functions of deal ``k``: who calls in
    the deal itself and who calls after a labelled call.  ``epsilon``: the share of the behaviour's
    calls replaced by a uniformly random candidate call (exploration); ``exact``: see :class:`PlayOutcomes`."""
    from ..envs import vint_v0
    env = vint_v0.raw_env()
    outcomes = PlayOutcomes(exact)
    rng = np.random.default_rng([seed, first, 7])
    obs, masks, actions, seats, deal_ids, values, returns = [], [], [], [], [], [], []
    t0 = time.perf_counter()
    for k in range(first, first + count):
        env_seed, _ = deal_seeds(seed, k)
        env.reset(seed=env_seed)
        outcomes.reset()
        acting, after = behaviour(k), continuation(k)
        start = len(actions)
        while env.deal.play is None and not env.deal.is_over:
            name = env.agent_selection
            seat = AGENTS.index(name)
            ob = env.observe(name)
            cands = candidate_calls(ob["action_mask"], max_jump)
            v = np.full(len(cands), np.nan, dtype=np.float32)
            for a in np.flatnonzero(cands):
                v[a] = call_outcome(env, int(a), after, outcomes)
            a = int(acting[seat](ob, env, name))
            if rng.random() < epsilon:
                a = int(rng.choice(np.flatnonzero(cands)))
            if not cands[a]:                 # the behaviour's own call beyond the candidates: label it too
                v[a] = call_outcome(env, a, after, outcomes)
            obs.append(ob["observation"])
            masks.append(ob["action_mask"])
            actions.append(a)
            seats.append(seat)
            deal_ids.append(k)
            values.append(v)
            env.step(a)
        finish_auction(env, acting)          # (already over: the loop ends with the auction)
        ns = outcomes.ns_points(env)
        returns += [ns if seats[j] % 2 == 0 else -ns for j in range(start, len(actions))]
        if say and (k - first + 1) % 50 == 0:
            say(f"labelled {k - first + 1}/{count} deals, {len(actions)} calls, {outcomes.played} plays, "
                f"{time.perf_counter() - t0:.0f} s")
    return TeacherData.from_arrays(np.stack(obs), np.stack(masks), actions, returns, seats, deal_ids,
                                   np.stack(values))


# ----------------------------------------------------------------------------- the network
def train_call_values(data: TeacherData, hidden=(256, 256), epochs: int = 10, lr: float = 1e-3,
                      batch: int = 256, value_unit: float = 10000.0, holdout: float = 0.1, seed: int = 0,
                      floor: float | None = -20000.0, behaviour_bonus: float = 0.0, relative: bool = False,
                      init=None, say=None):
    """Regress the labelled calls' outcomes (in ``value_unit`` points) from the observation (masked
    squared error; labels below ``floor`` points count as ``floor``: a hopeless overbid's exact cost
    would dominate the fit and never changes which call is best; ``behaviour_bonus`` points are added
    to the label of the call the behaviour made, so the network keeps the behaviour's call unless
    another is worth that much more: it learns to recognise the behaviour's call and where to leave
    it, a stand-in for the rule bot it needs no rule bot to play); ``relative``: every label less the
    label of the behaviour's call (an advantage: what the deal gives every call alike, honours and
    strong hands, leaves the target).  Returns ``(network, report)``; the report compares, on held-out deals, the points
    given up per call (the best labelled call's value minus the chosen call's) by the network's greedy
    choice and by the behaviour's call.  ``init``: a network to start from (policy iteration)."""
    import torch

    from ..agents.learned.networks import build_network
    say = say or (lambda m: None)
    torch.manual_seed(seed)
    deals = np.unique(data.deal_ids)
    rng = np.random.default_rng(seed)
    held = set(rng.choice(deals, size=int(len(deals) * holdout), replace=False).tolist()) if holdout else set()
    is_held = np.array([d in held for d in data.deal_ids])
    train_rows, test_rows = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    net = init if init is not None else build_network("mlp", data.obs_size, data.masks.shape[1],
                                                      {"hidden_sizes": list(hidden), "shared_torso": True})
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    values = data.values if floor is None else np.maximum(data.values, floor)
    rows = np.arange(len(values))
    values = values - values[rows, data.actions][:, None] if relative else values.copy()
    values[rows, data.actions] += behaviour_bonus
    targets = np.nan_to_num(values / value_unit, nan=0.0).astype(np.float32)
    labelled = ~np.isnan(data.values)
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(train_rows)
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            x = torch.as_tensor(data.obs(idx))
            t = torch.as_tensor(targets[idx])
            m = torch.as_tensor(labelled[idx])
            logits, _ = net(x)
            loss = ((logits - t) ** 2 * m).sum() / m.sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        report = evaluate_calls(net, data, test_rows, value_unit) if len(test_rows) else {}
        say(f"epoch {epoch + 1}/{epochs}: train loss {total / max(len(order), 1):.4f}"
            + "".join(f", {k} {v:.1f}" for k, v in report.items()))
    net.eval()
    return net, report


def evaluate_calls(net, data: TeacherData, rows: np.ndarray, value_unit: float) -> dict:
    """Held-out points given up per call (a decision with two or more labelled calls) by the network's
    greedy candidate call and by the behaviour's call, against the best labelled call."""
    import torch
    if not len(rows):
        return {}
    v = data.values[rows]
    several = (~np.isnan(v)).sum(axis=1) > 1
    rows, v = rows[several], v[several]
    with torch.no_grad():
        pred = net(torch.as_tensor(data.obs(rows)))[0].numpy() * value_unit
    best = np.nanmax(v, axis=1)
    chosen = np.array([best_call(p, ~np.isnan(x)) for p, x in zip(pred, v)])
    net_loss = best - v[np.arange(len(rows)), chosen]
    taken = data.actions[rows]
    beh_loss = best - v[np.arange(len(rows)), taken]
    return {"net_gives_up": float(net_loss.mean()), "behaviour_gives_up": float(np.nanmean(beh_loss)),
            "agree": float((chosen == taken).mean()) * 100}


def save_bidder(path: str | Path, net, max_jump: int | None, value_unit: float, config: dict,
                cards: str = "rule", card_network: dict | None = None, margin: float = 0.0) -> Path:
    """Write a bidder checkpoint (:mod:`vint_env.agents.learned.bidder`) atomically."""
    from ..agents.learned.policy import save_checkpoint
    record = GAME
    payload = {"game": record.env_name, "env_kwargs": {}, "obs_size": record.observation_size,
               "num_actions": record.num_actions,
               "network": {"name": "mlp", "kwargs": {"hidden_sizes": hidden_sizes(net), "shared_torso": True}},
               "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
               "bidder": {"cards": cards, "max_jump": max_jump, "value_unit": float(value_unit),
                          "margin": float(margin)},
               "config": config}
    if card_network is not None:
        payload["card_network"] = card_network
    return save_checkpoint(path, payload)


def save_checkpoint_with_cards(bidder_path: str | Path, card_network: dict, out: str | Path) -> Path:
    """A copy of the bidder checkpoint ``bidder_path`` that plays its cards by ``card_network``
    (``{"network": spec, "model": weights}``, e.g. a cloned card player's policy): ``cards: network``."""
    from ..agents.learned.policy import load_checkpoint, save_checkpoint
    ckpt = load_checkpoint(bidder_path, game=GAME)
    ckpt.pop("tensor_sha256", None)
    ckpt.pop("format", None)
    ckpt.pop("version", None)
    ckpt["bidder"] = {**ckpt["bidder"], "cards": "network"}
    ckpt["card_network"] = dict(card_network)
    path = save_checkpoint(out, ckpt)
    from ..agents.learned.bidder import load_bidder
    load_bidder(str(path), game=GAME)           # it loads, its card network fits
    return path


def hidden_sizes(net) -> list[int]:
    """The hidden widths of an ``mlp`` network."""
    import torch
    return [m.out_features for m in net.actor_torso if isinstance(m, torch.nn.Linear)]


__all__ = ["named_strains", "play_level", "PlayOutcomes", "contract_points", "play_out", "finish_auction", "call_outcome", "rule_bidder",
           "network_bidder", "label_deals", "train_call_values", "evaluate_calls", "save_bidder",
           "save_checkpoint_with_cards"]
