"""The Vint bidder: its calls' outcome labels are the deal's score by the rules, it calls only legal
calls, and its checkpoint loader refuses what it cannot play."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.agents.learned.bidder import VintBidderAgent, candidate_calls, load_bidder  # noqa: E402
from vint_env.agents.learned.policy import CheckpointError, PPOAgent, save_checkpoint  # noqa: E402
from vint_env.agents.registry import load_agent  # noqa: E402
from vint_env.agents.rule.vint import VintRuleAgent  # noqa: E402
from vint_env.envs import vint_v0  # noqa: E402
from vint_env.rules.vint import BID_BASE, PASS, Contract  # noqa: E402
from vint_env.rules.vint_scoring import score_contract  # noqa: E402
from vint_env.training.teacher_data import deal_seeds  # noqa: E402
from vint_env.training.vint_bidder import (label_deals, rule_bidder, save_bidder,  # noqa: E402
                                           save_checkpoint_with_cards)

AGENTS = ["player_0", "player_1", "player_2", "player_3"]


def bids(*texts):
    return [Contract.parse(t).action for t in texts]


def mask_after(*calls):
    env = vint_v0.raw_env()
    env.reset(seed=0)
    for a in calls:
        env.step(a)
    return env.observe(env.agent_selection)["action_mask"]


def test_candidate_calls_by_hand():
    first = np.flatnonzero(candidate_calls(mask_after(), 1))
    assert list(first) == [PASS] + bids("1S", "1C", "1D", "1H", "1NT", "2S", "2C", "2D", "2H", "2NT")
    after_1nt = np.flatnonzero(candidate_calls(mask_after(*bids("1NT")), 0))
    assert list(after_1nt) == [PASS] + bids("2S", "2C", "2D", "2H", "2NT")
    after_1d = np.flatnonzero(candidate_calls(mask_after(*bids("1D")), 0))
    assert list(after_1d) == [PASS] + bids("1H", "1NT", "2S", "2C", "2D")
    every = candidate_calls(mask_after(*bids("1D")), None)
    assert every.sum() == 1 + (35 - 3) and not every[:52].any()


def reference_points(seed: int, calls_before: list, call: int) -> float:
    """The deal's points for the caller's side by the rules: the calls so far, ``call``, then the rule
    bots finish the auction and play; the tricks scored with the rules' scoring."""
    env = vint_v0.raw_env()
    env.reset(seed=seed)
    bots = {a: VintRuleAgent() for a in AGENTS}
    for a in calls_before:
        env.step(a)
    caller = AGENTS.index(env.agent_selection)
    env.step(call)
    while not env.deal.is_over:
        name = env.agent_selection
        env.step(bots[name].act(env.observe(name), env=env, agent=name))
    deal = env.deal
    if deal.contract is None:
        return 0.0
    ns, ew = score_contract(deal.hands, deal.contract.level, deal.contract.strain, deal.declarer,
                            deal.play.side_tricks())
    return (ns.total - ew.total) * (1 if caller % 2 == 0 else -1)


def test_outcome_reward_is_the_deals_score_with_the_play_fixed():
    rule = [rule_bidder() for _ in range(4)]
    checked = 0
    for k in range(3):
        data = label_deals(21, k, 1, lambda _: rule, lambda _: rule, max_jump=1, exact=True)
        env_seed, _ = deal_seeds(21, k)
        before = []
        for row in range(min(len(data), 2)):       # the first two call decisions of the deal
            for call in np.flatnonzero(~np.isnan(data.values[row])):
                assert data.values[row, call] == reference_points(env_seed, before, int(call)), (k, row, call)
                checked += 1
            before.append(int(data.actions[row]))
        # the rule bot's own calls: their label is the deal's real outcome
        taken = data.values[np.arange(len(data)), data.actions]
        assert np.array_equal(taken, data.returns)
    assert checked >= 30


def test_approximate_plays_keep_the_rules_scoring():
    rule = [rule_bidder() for _ in range(4)]
    data = label_deals(3, 0, 2, lambda _: rule, lambda _: rule, max_jump=0, exact=False, epsilon=0.5)
    labelled = ~np.isnan(data.values)
    assert labelled[:, PASS].all() and not labelled[:, :52].any()
    assert np.all(np.abs(data.values[labelled]) < 100_000)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    from vint_env.agents.learned.networks import build_network
    from vint_env.games import get
    folder = tmp_path_factory.mktemp("bidder")
    record = get("vint")
    torch.manual_seed(0)
    net = build_network("mlp", record.observation_size, record.num_actions,
                        {"hidden_sizes": [16], "shared_torso": True})
    bidder = save_bidder(folder / "bidder.pt", net, 2, 1000.0, {"test": True})
    cards = build_network("mlp", record.observation_size, record.num_actions, {"hidden_sizes": [8]})
    ppo = save_checkpoint(folder / "cards.pt", {"game": record.env_name, "env_kwargs": {},
                                                "obs_size": record.observation_size,
                                                "num_actions": record.num_actions,
                                                "network": {"name": "mlp", "kwargs": {"hidden_sizes": [8]}},
                                                "model": cards.state_dict()})
    alone = save_checkpoint_with_cards(bidder, {"network": {"name": "mlp", "kwargs": {"hidden_sizes": [8]}},
                                                "model": cards.state_dict()}, folder / "alone.pt")
    return {"bidder": bidder, "ppo": ppo, "alone": alone, "folder": folder}


def play_deals(agents_by_seat, deals=3, seed=5):
    env = vint_v0.raw_env()
    for k in range(deals):
        env.reset(seed=seed + k)
        for a in agents_by_seat.values():
            a.reset(k)
        while not env.deal.is_over:
            name = env.agent_selection
            ob = env.observe(name)
            action = agents_by_seat[name].act(ob, env=env, agent=name)
            assert ob["action_mask"][action], (name, action)
            env.step(action)


def test_bidder_calls_legal_calls_and_plays_the_rule_bots_cards(checkpoints):
    agent = load_agent(f"bidder:{checkpoints['bidder']}", game="vint")
    assert isinstance(agent, VintBidderAgent) and isinstance(agent.cards, VintRuleAgent)
    play_deals({a: agent for a in AGENTS})


def test_standalone_bidder_consults_no_rule_bot(checkpoints, monkeypatch):
    agent = load_agent(f"bidder:{checkpoints['alone']}", game="vint")
    assert isinstance(agent.cards, PPOAgent)

    def no_rule_bot(*args, **kwargs):
        raise AssertionError("a rule bot was consulted")
    monkeypatch.setattr(VintRuleAgent, "act", no_rule_bot)
    play_deals({a: agent for a in AGENTS}, deals=2)
    forced = load_agent(f"bidder:{checkpoints['alone']},cards=rule", game="vint")
    assert forced.cards_kind == "rule"


def test_bidder_greedy_call_is_the_highest_valued_candidate(checkpoints):
    agent = load_bidder(str(checkpoints["bidder"]))
    env = vint_v0.raw_env()
    env.reset(seed=3)
    env.step(bids("1C")[0])
    ob = env.observe(env.agent_selection)
    values = agent.calls.values(ob["observation"])[0]
    cands = candidate_calls(ob["action_mask"], 2)
    call = agent.act(ob, env=env, agent=env.agent_selection)
    assert cands[call] and values[call] == values[cands].max()
    assert call == PASS or call > bids("1C")[0]
    cautious = load_bidder(checkpoints['bidder'], margin=1e9)     # no bid is worth a billion over passing
    assert cautious.calls.margin == 1e9 and cautious.act(ob, env=env, agent=env.agent_selection) == PASS


def test_bidder_loader_refusals(checkpoints, tmp_path):
    bidder = checkpoints["bidder"]
    refused = [  # (agent spec, game, error, what the message says)
        (f"bidder:{tmp_path / 'none.pt'}", "vint", CheckpointError, "does not exist"),
        (f"bidder:{checkpoints['ppo']}", "vint", CheckpointError, "not a bidder checkpoint"),
        (f"network:{bidder}", "vint", CheckpointError, "is a bidder checkpoint"),
        (f"bidder:{bidder}", "whist", CheckpointError, "trained on"),
        (f"bidder:{bidder},cards=network", "vint", CheckpointError, "card_network"),
        (f"bidder:{bidder},cards=dd", "vint", ValueError, "cards must be one of"),
        (f"bidder:{bidder},margin=-1", "vint", ValueError, "margin must be"),
        (f"bidder:{bidder},jump=3", "vint", ValueError, "unknown option 'jump'; its options: cards, margin"),
        ("bidder", "vint", ValueError, "needs its PATH"),
    ]
    for spec, game, error, message in refused:
        with pytest.raises(error, match=message):
            load_agent(spec, game=game)
    broken = tmp_path / "broken.pt"
    broken.write_bytes(checkpoints["bidder"].read_bytes()[:-100])
    with pytest.raises(CheckpointError, match="corrupt"):
        load_agent(f"bidder:{broken}", game="vint")
    ckpt = torch.load(checkpoints["bidder"], weights_only=True)
    ckpt.pop("tensor_sha256")
    for bad, match in (({"cards": "dd", "max_jump": 2, "value_unit": 1.0}, "cards must be one of"),
                       ({"cards": "rule", "max_jump": -1, "value_unit": 1.0}, "max_jump"),
                       ({"cards": "rule", "max_jump": 2, "value_unit": 0}, "value_unit")):
        path = save_checkpoint(tmp_path / "bad.pt", {**{k: v for k, v in ckpt.items()
                                                       if k not in ("format", "version")}, "bidder": bad})
        with pytest.raises(CheckpointError, match=match):
            load_agent(f"bidder:{path}", game="vint")


def test_trained_network_reports_held_out_calls():
    from vint_env.training.vint_bidder import train_call_values
    rule = [rule_bidder() for _ in range(4)]
    data = label_deals(9, 0, 6, lambda _: rule, lambda _: rule, max_jump=0)
    net, report = train_call_values(data, hidden=(16,), epochs=1, holdout=0.5)
    assert set(report) == {"net_gives_up", "behaviour_gives_up", "agree"}
    assert report["behaviour_gives_up"] >= 0 and report["net_gives_up"] >= 0
    assert BID_BASE > PASS
