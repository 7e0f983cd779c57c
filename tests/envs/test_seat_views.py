"""The AEC envs' card-by-card observation writer (`SeatViews`) against the reference encoders.

Random games of every game and episode variant: after every step, every seat's
``observe()`` (observed in a random order, some seats skipped for several steps,
as TorchRL observes seats not to move) must equal the full reference encoder bit
for bit, and the action mask must be exactly the rules' legal actions.
"""

import numpy as np
import pytest

from vint_env.envs import solo_whist_v0, vint_v0, whist_v0

CONFIGS = [
    (vint_v0, {}),
    (vint_v0, {"episode": "rubber", "max_deals": 3}),
    (vint_v0, {"passout": "play"}),
    (whist_v0, {}),
    (whist_v0, {"episode": "rubber", "max_deals": 3}),
    (whist_v0, {"no_trump": True}),
    (solo_whist_v0, {}),
]
IDS = [f"{m.__name__.rsplit('.', 1)[-1]}-{k}" for m, k in CONFIGS]


def reference_mask(raw, seat):
    mask = np.zeros(raw.NUM_ACTIONS, dtype=np.int8)
    if seat == raw.current_seat:
        mask[raw.deal.legal_actions()] = 1
    return mask


def check_views(raw, env, rng, observe_all: bool):
    seats = rng.permutation(4) if observe_all else rng.choice(4, size=int(rng.integers(0, 3)), replace=False)
    for seat in seats:
        got = env.observe(f"player_{seat}")
        want = raw._encode(int(seat))
        assert got["observation"].dtype == np.float32
        assert np.array_equal(got["observation"], want), (
            f"seat {seat}: entries {np.flatnonzero(got['observation'] != want)} differ from the reference")
        assert got["action_mask"].dtype == np.int8
        assert np.array_equal(got["action_mask"], reference_mask(raw, int(seat)))


def play_games(module, kwargs, games: int, seed: int, choose=None):
    rng = np.random.default_rng(seed)
    env = module.env(**kwargs)
    raw = env.unwrapped
    steps = 0
    for g in range(games):
        env.reset(seed=seed * 1000 + g)
        observe_all = g % 2 == 0
        for agent in env.agent_iter():
            check_views(raw, env, rng, observe_all)
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert np.array_equal(obs["observation"], raw._encode(raw.current_seat))
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(choose(raw, legal, rng) if choose else rng.choice(legal)))
            steps += 1
    return steps


@pytest.mark.parametrize("module, kwargs", CONFIGS, ids=IDS)
def test_observations_equal_reference_encoder(module, kwargs):
    assert play_games(module, kwargs, games=12, seed=1) > 12 * 13


@pytest.mark.slow
@pytest.mark.parametrize("module, kwargs", CONFIGS, ids=IDS)
def test_observations_equal_reference_encoder_many_games(module, kwargs):
    play_games(module, kwargs, games=400, seed=2)


def _solo_prefers(bid):
    """A chooser that makes ``bid`` whenever it is legal (so rare contracts get played)."""
    def choose(raw, legal, rng):
        return bid if bid in legal else rng.choice(legal)
    return choose


@pytest.mark.parametrize("bid", ["open misère", "misère", "abondance", "proposal"])
def test_solo_whist_contracts_equal_reference_encoder(bid):
    from vint_env.rules.solo_whist_calls import parse_action
    play_games(solo_whist_v0, {}, games=6, seed=3, choose=_solo_prefers(parse_action(bid)))


def test_vint_low_contracts_play_long_auctions_equal_reference_encoder():
    """Bids one step at a time: long auctions, all strains, then the play."""
    def choose(raw, legal, rng):
        return legal[1] if len(legal) > 1 and rng.random() < 0.7 else legal[0]
    play_games(vint_v0, {}, games=6, seed=4, choose=choose)


def test_state_changed_outside_step_is_reencoded():
    """A deal replaced or advanced behind the env's back: the views notice and re-encode."""
    env = vint_v0.env()
    env.reset(seed=5)
    raw = env.unwrapped
    rng = np.random.default_rng(5)
    while raw.deal.phase != "play":
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    for seat in range(4):
        env.observe(f"player_{seat}")
    card = raw.deal.legal_actions()[0]
    raw.deal.apply(card)                       # behind the env's back
    raw._seat = raw.deal.current_player
    for seat in range(4):
        assert np.array_equal(env.observe(f"player_{seat}")["observation"], raw._encode(seat))


def test_seats_never_observed_for_many_deals_stay_exact():
    """Only North is observed for 100 deals; the other rows are stale all along and must neither drift
    nor spill into North's row (each row's card counts are kept only while the row is up to date)."""
    env = whist_v0.env()
    raw = env.unwrapped
    rng = np.random.default_rng(6)
    for deal in range(100):
        env.reset(seed=deal)
        while raw.current_seat >= 0:
            if raw.current_seat == 0:
                assert np.array_equal(env.observe("player_0")["observation"], raw._encode(0))
            env.step(int(rng.choice(raw.legal_actions())))
    env.reset(seed=100)
    for _ in range(9):
        env.step(int(rng.choice(raw.legal_actions())))
    for seat in (0, 1, 2, 3, 0):
        assert np.array_equal(env.observe(f"player_{seat}")["observation"], raw._encode(seat))


# ------------------------------------------------------------ the thin order-enforcing wrapper

@pytest.mark.parametrize("illegal_action", ["raise", "terminate"])
def test_order_enforcing_errors_match_pettingzoo(illegal_action):
    """Misuse before reset gets PettingZoo's own errors, as with its OrderEnforcingWrapper."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
    env = vint_v0.env(illegal_action=illegal_action)
    assert isinstance(env, OrderEnforcingWrapper) and str(env) == "vint_v0"
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        env.last()
    for call, what in ((lambda: env.step(0), "step"), (lambda: env.observe("player_0"), "observe"),
                       (lambda: env.agent_iter(), "agent_iter"), (lambda: env.state(), "state")):
        with pytest.raises(AssertionError, match=f"reset\\(\\) needs to be called before {what}"):
            call()
    env.reset(seed=0)
    assert env.num_agents == 4 and env.agents == env.unwrapped.agents
    it = iter(env.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)


def test_step_after_the_end_warns_like_pettingzoo(caplog):
    env = vint_v0.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    env.step(None)
    assert "step() called after all agents are terminated or truncated" in caplog.text
