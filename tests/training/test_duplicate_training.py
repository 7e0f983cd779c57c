"""Duplicate training (collection.duplicate): the two tables of a pair hold the same cards with the seats
rotated, and each learner seat's return is paired with the same seat's at the other table."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.agents.registry import load_agent
from vint_env.training.config import ConfigError, load_config
from vint_env.training.duplicate import rotate_seats, twin, variance_figures
from vint_env.training.variance import return_variance
from vint_env.agents.base import Agent
from vint_env.training.seating import BOT, LEARNER, PARTNERSHIPS, SINGLE_SEATS, Seating, learner_sides
from vint_env.training.selfplay import SelfPlayCollector, StreamBuffer
from vint_env.training.sources import make_game_batch


class Deterministic(torch.nn.Module):
    """Always the legal action first in a fixed order of the actions (logits a thousand apart: sampling
    cannot choose another); in Vint a pass comes last, so the deals are bid and played."""

    def __init__(self, num_actions):
        super().__init__()
        rank = np.random.default_rng(7).permutation(num_actions).astype(np.float32)
        if num_actions == 88:
            rank[52] = num_actions      # Vint's pass
        self.logits = torch.from_numpy(-1000.0 * rank)

    def forward(self, obs):
        n = obs.shape[0]
        return self.logits.expand(n, -1), torch.zeros(n)


class DeterministicBot(Agent):
    """A scripted bot that plays exactly as :class:`Deterministic` does."""

    def __init__(self, num_actions):
        self.logits = Deterministic(num_actions).logits.numpy()

    def act(self, observation, env=None, agent=None):
        return int(np.argmax(np.where(observation["action_mask"], self.logits, -np.inf)))


def bots(game):
    return lambda kind: load_agent(kind, game=game)


def collector(source, game, mix, num_envs=4, num_steps=30, **batch_options):
    game = games.get(game)          # the test's parameter is a name; the batch takes the record
    batch = make_game_batch(source, game, num_envs, {}, **batch_options)
    return batch, SelfPlayCollector(batch, mix, num_steps, bots(game), duplicate=True)


def test_twins_and_rotation():
    assert [twin(i, 6) for i in range(6)] == [3, 4, 5, 0, 1, 2]
    assert rotate_seats(np.array([10, 11, 12, 13])).tolist() == [11, 12, 13, 10]


@pytest.mark.parametrize("source", ["vector", "aec"])
@pytest.mark.parametrize("game", ["whist_v0", "vint_v0"])
def test_the_two_tables_hold_the_same_cards_with_the_seats_rotated(source, game):
    batch, col = collector(source, game, {"rule": 0.5, "random": 0.5}, num_envs=6)
    buf = StreamBuffer(6)
    started = col._deal_again([0, 1, 2], np.random.default_rng(3), 0, buf)
    assert [i for i, _ in started] == [0, 3, 1, 4, 2, 5]
    assert [s for _, s in started][0::2] == [s for _, s in started][1::2]   # each pair: one seed
    batch.start_many([i for i, _ in started], [s for _, s in started])
    seats = batch.acting_seats()
    obs, masks = batch.observe(np.arange(6))
    for a in range(3):
        b = a + 3
        # the same seat moves first and sees the same cards (its hand, dealer, turned card) at both tables
        assert seats[a] == seats[b] and np.array_equal(obs[a], obs[b]) and np.array_equal(masks[a], masks[b])
        # every controller one seat on: the learner holds at b the cards its opponents held at a
        seat = col.seating
        assert seat.control[b].tolist() == np.roll(seat.control[a], -1).tolist()
        assert seat.learner_side[b] == 1 - seat.learner_side[a]
        assert [s % 2 for s in np.flatnonzero(seat.control[b] == LEARNER)] == [1 - seat.learner_side[a]] * 2
        assert (seat.control[a] == BOT).sum() == 2 and seat.deal_kind[a] == seat.deal_kind[b]
        assert sorted(seat.bot_seed[a][seat.control[a] == BOT]) == sorted(seat.bot_seed[b][seat.control[b] == BOT])
    if source == "vector":
        hands = batch.state.hands
        for a in range(3):
            assert np.array_equal(hands[a], hands[a + 3])
            assert batch.state.dealer[a] == batch.state.dealer[a + 3]


def trajectory_returns(rollout):
    """The summed reward of every (deal, seat) trajectory of the rollout."""
    out = {}
    for k in range(len(rollout)):
        key = (int(rollout.deal_ids[k]), int(rollout.seats[k]))
        out[key] = out.get(key, 0.0) + float(rollout.rewards[k])
    return out


@pytest.mark.parametrize("source", ["vector", "aec"])
def test_solo_whist_learner_sits_alone_and_the_twin_seats_it_one_seat_back(source):
    batch, col = collector(source, "solo_whist", {"rule": 0.5, "pool": 0.5}, num_envs=8)
    assert col.seating.sides_seats == SINGLE_SEATS == learner_sides(games.get("solo_whist"))
    buf = StreamBuffer(8)
    started = col._deal_again([0, 1, 2, 3], np.random.default_rng(4), 2, buf)
    batch.start_many([i for i, _ in started], [s for _, s in started])
    seats, (obs, masks) = batch.acting_seats(), batch.observe(np.arange(8))
    seat, drawn = col.seating, set()
    for a in range(4):
        b = a + 4
        assert seats[a] == seats[b] and np.array_equal(obs[a], obs[b]) and np.array_equal(masks[a], masks[b])
        # one learner seat at each table, three opponents of the deal's kind
        for g in (a, b):
            assert np.flatnonzero(seat.control[g] == LEARNER).tolist() == [seat.learner_side[g]]
            assert (seat.control[g] == (BOT if seat.deal_kind[g] == "rule" else seat.control[g].max())).sum() == 3
        assert seat.control[b].tolist() == np.roll(seat.control[a], -1).tolist()
        assert seat.learner_side[b] == (seat.learner_side[a] - 1) % 4
        drawn.add(int(seat.learner_side[a]))
    assert len(drawn) > 1                           # the learner's seat is drawn, not fixed


def test_the_sides_are_the_partnerships_except_in_solo_whist():
    assert [learner_sides(games.get(g)) for g in ("vint", "whist", "vint2p")] == [PARTNERSHIPS] * 3
    with pytest.raises(ValueError, match="sides must be"):
        Seating(4, {"rule": 1.0}, None, sides=((0, 1), (2, 3)))


@pytest.mark.parametrize("source", ["vector", "aec"])
def test_solo_whist_pairs_the_learner_with_the_other_tables_player_of_its_cards(source):
    # a bot that plays exactly as the learner does: the seat's result is the same at both tables, so every
    # paired return is exactly zero, though the deals score
    game = games.get("solo_whist")
    batch = make_game_batch(source, game, 4, {})
    net = Deterministic(batch.num_actions)
    col = SelfPlayCollector(batch, {"rule": 1.0}, 60, lambda kind: DeterministicBot(batch.num_actions),
                            duplicate=True, compiled_bots=False)
    rollout = col.collect(net, [], np.random.default_rng(6), torch.Generator().manual_seed(6))
    rows = rollout.side_returns
    assert len(rows) >= 8 and np.abs(rows[:, 0]).max() > 0
    assert np.array_equal(rows[:, 1], np.zeros(len(rows)))
    assert len(set(rollout.seats.tolist())) > 1
    # against the real rule bot the pairs do not cancel; the learner's one done transition a table holds its
    # paired return
    col = SelfPlayCollector(batch, {"rule": 1.0}, 60, bots(game), duplicate=True)
    rollout = col.collect(net, [], np.random.default_rng(6), torch.Generator().manual_seed(6))
    rows = rollout.side_returns
    assert np.abs(rows[:, 1]).max() > 0 and not np.allclose(rows[:, 0], rows[:, 1])
    assert np.allclose(np.sort(rollout.rewards[rollout.dones]), np.sort(rows[:, 1]))


@pytest.mark.parametrize("source", ["vector", "aec"])
@pytest.mark.parametrize("game", ["whist_v0", "vint_v0", "solo_whist_v0"])
@pytest.mark.parametrize("mix", [{"self": 1.0}, {"pool": 1.0}], ids=["self", "pool"])
def test_identical_deterministic_policies_pair_to_exactly_zero(source, game, mix):
    batch, col = collector(source, game, mix, num_envs=4, num_steps=60)
    net = Deterministic(batch.num_actions)
    rollout = col.collect(net, [net], np.random.default_rng(1), torch.Generator().manual_seed(1))
    rows = rollout.side_returns
    assert len(rows) >= 8 and np.abs(rows[:, 0]).max() > 0        # the deals score ...
    assert np.array_equal(rows[:, 1], np.zeros(len(rows)))        # ... and the tables' results cancel exactly
    assert all(r == 0.0 for r in trajectory_returns(rollout).values())
    assert rollout.stats["deals"] % 2 == 0


def test_per_step_rewards_pair_by_trajectory():
    # shaped trick rewards (AEC): every transition keeps its own credit; the deal's end takes the other table's
    # total of the same seat, so each trajectory sums to zero when both tables play alike
    from vint_env.training.shaping import RewardShaper
    batch = make_game_batch("aec", games.get("whist"), 4, {}, RewardShaper(0.5, [], "none", 1.0))
    col = SelfPlayCollector(batch, {"self": 1.0}, 60, bots(games.get("whist")), duplicate=True)
    net = Deterministic(batch.num_actions)
    rollout = col.collect(net, [net], np.random.default_rng(2), torch.Generator().manual_seed(2))
    assert np.abs(rollout.rewards[~rollout.dones]).max() == 0.5   # the tricks' credits are still there
    assert all(abs(r) < 1e-12 for r in trajectory_returns(rollout).values())


@pytest.mark.parametrize("source", ["vector", "aec"])
def test_paired_return_is_the_boards_duplicate_score_at_both_tables(source):
    batch, col = collector(source, games.get("whist"), {"rule": 1.0}, num_envs=4, num_steps=60)
    net = Deterministic(batch.num_actions)     # a poor player: it loses to the rule bot
    rollout = col.collect(net, [net], np.random.default_rng(5), torch.Generator().manual_seed(5))
    rows = rollout.side_returns             # tables a, b of each settled pair in turn
    a, b = rows[0::2], rows[1::2]
    assert np.allclose(a[:, 1], b[:, 1]) and np.allclose(a[:, 1], a[:, 0] + b[:, 0])
    assert np.abs(a[:, 1]).max() > 0 and rows[:, 1].mean() < 0
    # the training rewards: each learner seat's done transition holds the paired return
    assert np.allclose(np.sort(rollout.rewards[rollout.dones]), np.sort(np.repeat(rows[:, 1], 2)))


def test_without_duplicate_the_rows_carry_no_paired_return():
    batch = make_game_batch("vector", games.get("whist"), 3, {})
    col = SelfPlayCollector(batch, {"rule": 1.0}, 52, bots(games.get("whist")))
    rollout = col.collect(Deterministic(52), [], np.random.default_rng(0), torch.Generator())
    assert len(rollout.side_returns) == 3 and np.isnan(rollout.side_returns[:, 1]).all()
    assert np.isnan(variance_figures(rollout.side_returns)["paired_return_var"])


def test_return_variance_on_the_same_deals():
    figures = return_variance(games.get("whist"), opponent="rule", deals=16, num_envs=8, seed=0)
    assert figures["deals"] >= 16 and figures["n"] == 2 * figures["deals"]
    assert 0 < figures["paired_return_var"] < figures["return_var"]        # the deal's luck cancels
    assert figures["paired_return_mean"] == pytest.approx(2 * figures["return_mean"])


def test_return_variance_of_solo_whist_counts_one_seat_a_table():
    # the learner sits alone: a row per table against the bots, four a table in self-play
    for opponent, rows in (("rule", 2), ("self", 8)):
        figures = return_variance(games.get("solo_whist"), opponent=opponent, deals=12, num_envs=8, seed=0)
        assert figures["deals"] >= 12 and figures["n"] == rows * figures["deals"]
        assert figures["return_var"] > 0 and figures["paired_return_var"] > 0


@pytest.mark.parametrize("overrides,message", [
    (["run.game=vint2p_v0", "collection.duplicate=true"], "vint2p is a two_player game"),
    (["collection.duplicate=true", "collection.num_envs=5"], "num_envs must be even"),
    (["collection.duplicate=1"], "'duplicate' must be of type bool"),
    (["collection.duplicat=true"], "did you mean 'collection.duplicate'"),
    (["duplicat=true"], "did you mean 'duplicate'"),
    (["ppo.duplicate=true"], "is not in section 'ppo': it is collection.duplicate"),
])
def test_config_refuses_what_duplicate_training_cannot_do(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_config_accepts_duplicate_for_the_four_seat_games():
    for game in ("whist_v0", "vint_v0", "solo_whist_v0"):
        for source in ("vector", "aec"):
            cfg = load_config(None, [f"game={game}", "collection.duplicate=true", f"env_source={source}"])
            assert cfg.collection.duplicate and cfg.to_dict()["collection"]["duplicate"] is True


def test_a_trainer_logs_the_variance_columns(tmp_path):
    from vint_env.training.trainer import Trainer
    cfg = load_config(None, ["game=whist_v0", "env_source=vector", "num_envs=8", "num_steps=52",
                             "collection.duplicate=true", "opponent_mix={self: 0.5, rule: 0.5}",
                             "network_kwargs={hidden_sizes: [16]}", "eval_opponents=[]", "total_timesteps=1"])
    trainer = Trainer(cfg, tmp_path)
    scalars = trainer.update_once()
    assert scalars["return_var"] > 0 and scalars["paired_return_var"] >= 0
    assert np.isfinite(scalars["policy_loss"])


def test_variance_command(capsys):
    from training.variance import main
    assert main(["--game", "whist", "--opponent", "random", "--deals", "4", "--json"]) == 0
    import json
    figures = json.loads(capsys.readouterr().out)
    assert figures["deals"] >= 4 and figures["return_var"] > 0
    assert main(["--game", "vint2p", "--deals", "2"]) == 2
    assert "vint2p is a two_player game" in capsys.readouterr().err
