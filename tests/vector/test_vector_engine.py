"""The batched engine against the reference rules, action by action (docs/rules/vint.md; docs/architecture.md, "The batched engine has one kernel").

Thousands of random deals are played by the reference ``VintDeal`` (and the
``vint_v0`` env) and by :class:`VintEngine` with the same actions; at every
step masks, observations (bit for bit), rewards and termination must agree.
The random policies pass often in some games so that pass-outs, low
contracts and failed slams all occur.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from card_game_checks import ONE_SUIT_EACH
from vint_env.cards import DeckError, parse_pbn
from vint_env.games.vint import D, encode_observation, encode_state
from vint_env.envs.vint_v0 import raw_env
from vint_env.rules.tricks import IllegalActionError, MalformedActionError
from vint_env.rules.vint import PASS, VintDeal
from vint_env.vector import VintEngine, four_seat_kernels, vint2p_kernels
from vint_env.vector.engine import random_legal_actions

SCALE = 0.001


def biased_actions(mask, rng, pass_prob):
    """Uniform legal actions, except that each game passes with its own probability when it may."""
    acts = random_legal_actions(mask, rng)
    may_pass = mask[:, PASS] == 1
    passing = may_pass & (rng.random(mask.shape[0]) < pass_prob)
    acts[passing] = PASS
    return acts


def reference_deal(state, b, passout, honours="majority"):
    return VintDeal(tuple(int(h) for h in state.dealt[b]), int(state.dealer[b]), passout, honours)


def check_views(engine, state, refs, all_seats):
    for b, ref in enumerate(refs):
        mask = np.zeros(88, dtype=np.int8)
        mask[ref.legal_actions()] = 1
        assert np.array_equal(state.legal_action_mask[b], mask), (b, ref)
        assert state.current_player[b] == ref.current_player
        expected = encode_observation(ref, ref.current_player)
        got = state.observation[b]
        assert got.dtype == expected.dtype and np.array_equal(got, expected), (b, np.flatnonzero(got != expected))
    if all_seats:
        full = engine.global_state(state)
        for b, ref in enumerate(refs):
            assert np.array_equal(full[b], encode_state(ref)), b
        for seat in range(4):
            seen = engine.observe(state, np.full(len(refs), seat))
            for b, ref in enumerate(refs):
                assert np.array_equal(seen[b], encode_observation(ref, seat)), (b, seat)


def play_against_reference(passout, batch, games, seed, all_seats_every=7, honours="majority"):
    engine = VintEngine(passout=passout, reward_scale=SCALE, honours=honours)
    state = engine.init(seed=seed, batch_size=batch)
    refs = [reference_deal(state, b, passout, honours) for b in range(batch)]
    rng = np.random.default_rng(seed)
    pass_prob = rng.choice([0.0, 0.3, 0.7, 0.95], size=batch)
    finished = passed_out = steps = 0
    contracts = set()
    while finished < games:
        check_views(engine, state, refs, all_seats=steps % all_seats_every == 0)
        actions = biased_actions(state.legal_action_mask, rng, pass_prob)
        for b, ref in enumerate(refs):
            ref.apply(int(actions[b]))
        state = engine.step(state, actions)
        steps += 1
        for b, ref in enumerate(refs):
            assert bool(state.terminated[b]) == ref.is_over, (b, ref)
            if ref.is_over:
                diff = ref.scores[0].total - ref.scores[1].total
                assert state.points[b].tolist() == [diff, -diff, diff, -diff]
                assert state.rewards[b].tolist() == [diff * SCALE, -diff * SCALE, diff * SCALE, -diff * SCALE]
                finished += 1
                passed_out += ref.passed_out
                contracts.add(str(ref.contract))
                refs[b] = reference_deal(state, b, passout, honours)
            else:
                assert not state.rewards[b].any()
    return finished, passed_out, contracts, steps * batch


@pytest.mark.parametrize("passout, honours", [("mark", "majority"), ("play", "majority"), ("mark", "net")])
def test_engine_matches_reference_rules_step_by_step(passout, honours):
    finished, passed_out, contracts, steps = play_against_reference(passout, batch=96, games=1000,
                                                                     seed=11 if passout == "mark" else 12,
                                                                     honours=honours)
    assert finished >= 1000 and passed_out >= 20
    assert len(contracts) >= 30          # low and high contracts in every strain, and pass-outs


@pytest.mark.slow
@pytest.mark.parametrize("passout", ["mark", "play"])
@pytest.mark.parametrize("honours", ["majority", "net"])
def test_engine_matches_reference_rules_many_games(passout, honours):
    """The same check on 20,000 deals (opt-in: ``pytest -m slow``)."""
    finished, passed_out, contracts, _ = play_against_reference(passout, batch=256, games=20000,
                                                                 seed=101, all_seats_every=40, honours=honours)
    assert finished >= 20000 and len(contracts) == 36          # every contract and the pass-out


def test_engine_matches_vint_v0_env():
    """Rewards (points x reward_scale, per seat) and every agent's observation equal the AEC env's."""
    engine = VintEngine(reward_scale=SCALE, auto_reset=False)
    batch = 24
    state = engine.init(seed=5, batch_size=batch)
    envs = []
    for b in range(batch):
        env = raw_env(reward_scale=SCALE)
        env.reset(options={"deal": tuple(int(h) for h in state.dealt[b]), "dealer": int(state.dealer[b])})
        envs.append(env)
    rng = np.random.default_rng(5)
    pass_prob = rng.choice([0.0, 0.5, 0.9], size=batch)
    while not all(e.terminations["player_0"] for e in envs):
        actions = biased_actions(np.maximum(state.legal_action_mask, state.small[:, 0:1] == 2), rng, pass_prob)
        for b, env in enumerate(envs):
            if not env.terminations["player_0"]:
                env.step(int(actions[b]))
        state = engine.step(state, actions)
        for seat in range(4):
            seen = engine.observe(state, np.full(batch, seat))
            for b, env in enumerate(envs):
                agent = f"player_{seat}"
                o = env.observe(agent)
                assert np.array_equal(seen[b], o["observation"])
                if env.terminations[agent]:
                    assert not state.legal_action_mask[b].any()
                    assert not o["action_mask"].any()
                elif env.agent_selection == agent:
                    assert np.array_equal(state.legal_action_mask[b], o["action_mask"])
        for b, env in enumerate(envs):
            done = env.terminations["player_0"]
            assert state.phase[b] == (2 if done else state.phase[b])
            if state.terminated[b]:
                assert done
                assert state.rewards[b].tolist() == [env.rewards[f"player_{s}"] for s in range(4)]


def test_serial_and_parallel_kernels_agree_exactly():
    engines = [VintEngine(), VintEngine(parallel=True)]
    states = [e.init(seed=3, batch_size=64) for e in engines]
    rng = np.random.default_rng(3)
    pass_prob = rng.choice([0.0, 0.6, 0.95], size=64)
    for _ in range(400):
        a = states[0]
        for b in states[1:]:
            for name in ("small", "words", "key", "deal_index", "observation", "legal_action_mask", "rewards",
                         "points", "terminated", "observer"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
        actions = biased_actions(a.legal_action_mask, rng, pass_prob)
        states = [e.step(s, actions) for e, s in zip(engines, states)]
    assert states[0].deal_index.min() >= 3      # new deals after auto-reset were compared too


@pytest.mark.parametrize("kernels", [four_seat_kernels, vint2p_kernels], ids=["four_seat", "vint2p"])
def test_the_serial_and_parallel_step_kernels_keep_distinct_disk_caches(kernels):
    """Each module's two step kernels are one source compiled twice.  numba's disk cache keys a compiled function by
    its code and its closure's values only: one key for both would load one kernel's code for the other from the
    cache (the parallel engine on one thread, or the serial one on numba's threads)."""
    serial, parallel = kernels._step_serial, kernels._step_parallel
    assert not serial.targetoptions.get("parallel") and parallel.targetoptions["parallel"]
    keys = [k._cache._index_key(None, k.targetctx.codegen())[2] for k in (serial, parallel)]
    assert keys[0] != keys[1]
    # and the same keys in another process (a closure holding a compiled function would pickle its random id)
    code = (f"from {kernels.__name__} import _step_serial as s, _step_parallel as p\n"
            "print(repr([k._cache._index_key(None, k.targetctx.codegen())[2] for k in (s, p)]))")
    root = str(Path(kernels.__file__).resolve().parents[2])        # the folder holding this vint_env
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONPATH=root))
    assert done.stdout.strip() == repr(keys)


def test_same_seed_same_games_whatever_the_batch():
    engine = VintEngine()

    def run(seeds, steps=150):
        state = engine.init(seed=np.array(seeds))
        rng = np.random.default_rng(0)
        history = []
        for _ in range(steps):
            a = random_legal_actions(state.legal_action_mask, rng)
            history.append(state.copy())
            state = engine.step(state, a)
        return history

    one = run([7, 8, 9])
    two = run([7, 8, 9])
    for x, y in zip(one, two):
        assert np.array_equal(x.small, y.small) and np.array_equal(x.observation, y.observation)
    # Deals depend on the game's own seed only.
    assert np.array_equal(engine.init(seed=np.array([8])).dealt[0], engine.init(seed=np.array([7, 8])).dealt[1])
    assert not np.array_equal(engine.init(seed=1, batch_size=2).dealt, engine.init(seed=2, batch_size=2).dealt)


def test_random_deals_are_uniform_enough():
    """Every card lands in every seat about equally often, and dealers are spread evenly."""
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=20000)
    bits = np.unpackbits(state.dealt.astype("<u8").view(np.uint8).reshape(-1, 4, 8), axis=2,
                         bitorder="little")[:, :, :52]
    assert (bits.sum(axis=1) == 1).all()                   # each card dealt exactly once
    freq = bits.mean(axis=0)                               # [seat, card], 0.25 each
    assert np.abs(freq - 0.25).max() < 0.025
    assert np.abs(np.bincount(state.dealer, minlength=4) / 20000 - 0.25).max() < 0.02


def test_deal_injection_and_manual_reset():
    pbn = [ONE_SUIT_EACH, "E:" + ONE_SUIT_EACH[2:]]
    engine = VintEngine(auto_reset=False)
    state = engine.init(seed=0, deals=pbn, dealers=[0, 3])
    assert state.dealt[0].tolist() == list(parse_pbn(pbn[0]))
    assert state.dealt[1].tolist() == list(parse_pbn(pbn[1]))
    assert state.current_player.tolist() == [0, 3]
    # Game 0: 7S by North and three passes, then the 52 cards; game 1 passes out meanwhile.
    refs = [VintDeal(parse_pbn(p), d) for p, d in zip(pbn, (0, 3))]
    points = np.zeros((2, 4), dtype=np.int64)
    for _ in range(60):
        actions = np.zeros(2, dtype=np.int64)
        for b, ref in enumerate(refs):
            if not ref.is_over:
                legal = ref.legal_actions()
                actions[b] = 83 if b == 0 and 83 in legal else (PASS if PASS in legal else legal[0])
                ref.apply(int(actions[b]))
        state = engine.step(state, actions)
        points[state.terminated] = state.points[state.terminated]
    assert state.phase.tolist() == [2, 2] and not state.legal_action_mask.any()
    assert refs[0].contract.level == 7 and refs[0].play.side_tricks() == (13, 0) and refs[1].passed_out
    diff = refs[0].scores[0].total - refs[0].scores[1].total
    assert diff > 10000 and points.tolist() == [[diff, -diff, diff, -diff], [0, 0, 0, 0]]
    state = engine.step(state, np.array([-5, 999]))          # finished games ignore their actions
    assert not state.terminated.any()
    state = engine.reset(state, [1], deals=[pbn[0]], dealers=[2])
    assert state.phase.tolist() == [2, 0] and state.current_player.tolist() == [-1, 2]
    with pytest.raises(DeckError, match="deal 0"):
        engine.reset(state, [0], deals=["N:AK.QJ.T9.87 - - -"])
    with pytest.raises(ValueError, match="dealers"):
        engine.init(seed=0, deals=pbn, dealers=[0, 4])


def test_reset_of_some_games_leaves_the_others_alone():
    engine = VintEngine(auto_reset=False)
    state = engine.init(seed=2, batch_size=6)
    rng = np.random.default_rng(2)
    for _ in range(20):
        state = engine.step(state, engine.random_actions(state, rng))
    before = state.copy()
    state = engine.reset(state, [1, 4])
    others = [0, 2, 3, 5]
    assert np.array_equal(state.small[others], before.small[others])
    assert np.array_equal(state.observation[others], before.observation[others])
    assert np.array_equal(state.legal_action_mask[others], before.legal_action_mask[others])
    for b in (1, 4):
        ref = VintDeal(tuple(int(h) for h in state.dealt[b]), int(state.dealer[b]))
        assert np.array_equal(state.observation[b], encode_observation(ref, ref.current_player))
        assert state.legal_action_mask[b].sum() == 36 and state.deal_index[b] == before.deal_index[b] + 1


def test_bad_actions_fail_loudly():
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=3)
    with pytest.raises(IllegalActionError, match=r"game 1: seat \d may not take action 5 \(S7\)"):
        engine.step(state, np.array([PASS, 5, PASS]))
    with pytest.raises(MalformedActionError, match="out of range"):
        engine.step(state, np.array([PASS, PASS, 88]))
    with pytest.raises(ValueError, match="shape"):
        engine.step(state, np.array([PASS, PASS]))
    with pytest.raises(MalformedActionError, match="integer"):
        engine.step(state, np.array([52.0, 52.0, 52.0]))
    assert state.phase.tolist() == [0, 0, 0] and state.passes.tolist() == [0, 0, 0]   # nothing applied
    for backend in ("cuda", "numpy", "auto"):          # the NumPy backend is gone; numba is the one kernel
        with pytest.raises(ValueError, match="backend must be 'numba'"):
            VintEngine(backend=backend)
    with pytest.raises(ValueError):
        VintEngine(passout="replay")
    with pytest.raises(ValueError):
        engine.init(seed=0)


def test_uint8_observations_equal_float32():
    engines = [VintEngine(obs_dtype=t) for t in (np.float32, np.uint8)]
    states = [e.init(seed=4, batch_size=16) for e in engines]
    rng = np.random.default_rng(4)
    for _ in range(80):
        assert states[1].observation.dtype == np.uint8
        assert np.array_equal(states[0].observation, states[1].observation.astype(np.float32))
        a = random_legal_actions(states[0].legal_action_mask, rng)
        states = [e.step(s, a) for e, s in zip(engines, states)]


def test_memory_does_not_grow_with_games_played():
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=256)
    rng = np.random.default_rng(0)
    uniform = rng.random((256, 88))

    def run(n):
        nonlocal state
        for i in range(n):
            a = (state.legal_action_mask * uniform[:, np.roll(np.arange(88), i)]).argmax(1)
            state = engine.step(state, a)

    run(100)
    tracemalloc.start()
    run(50)
    first, _ = tracemalloc.get_traced_memory()
    run(400)                                  # about 1,600 more deals
    second, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert state.deal_index.sum() > 1500
    assert second - first < 64 * 1024, (first, second)
    assert peak < 16 * 1024 * 1024


def test_state_views_are_named_columns():
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=2)
    assert state.observation.shape == (2, D) and state.legal_action_mask.dtype == np.int8
    state.current_player[:] = 3              # views write through
    assert state.small[:, 1].tolist() == [3, 3]
