"""The compiled Solo Whist rule bot (``vint_env.vector.solo_whist_rule``) against the Python rule bot.

Batches of engine games where each seat of each deal is played by the rule bot (auction and play), by
random play (tests/solo_whist_play.py's steered calls, uniform cards), or by random calls and the rule
bot's play (so that the bot also plays contracts it would not have bid: déclarée, open misère, trump
abondance ...).  At every decision of a rule seat both bots choose from the same state, the Python one
from its seat's observation (one ``SoloWhistRuleAgent`` per game and seat, reset at every new deal, as a
trainer's bots are), and the choices must be equal; the Python bot's choice is played.  A share of the
deals are lopsided (one seat holds the top or the bottom cards) so that the bot's own rare calls are made.
Each run counts what it covered (the bot's calls, the trump choice, the play of every contract by each side
and every position) and fails if something was not reached.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from solo_whist_play import Styles, lopsided_deal
from vint_env.agents.rule.solo_whist import SoloWhistRuleAgent
from vint_env.games.solo_whist import SOLO_WHIST_LAYOUT
from vint_env.rules.solo_whist_calls import (ABONDANCE, ACCEPT, BIDS, CALL_NAMES, DECLAREE, MISERE, OPEN_MISERE,
                                             PASS, PROPOSAL, SOLO, TRUMP_ABONDANCE)
from vint_env.vector import SoloWhistEngine
from vint_env.vector.solo_whist_rule import RuleBotError, SoloWhistRuleBot
from vint_env.vector.state import AUCTION, DEALT, HAND, TRUMP

MUST_RAISE = SOLO_WHIST_LAYOUT.offset["must_raise"]
RULE, RANDOM, PLAY_ONLY = 0, 1, 2          # who plays a seat: the rule bot; random; random calls, rule bot's play
ROLE_ODDS = (0.5, 0.25, 0.25)

#: What every run must cover: the bot's calls (trump abondance needs a standing abondance, rare), the trump
#: choice, and its play of every contract on both sides, leading, following and void.
REQUIRED = ([f"call {CALL_NAMES[c]}" for c in (PASS, PROPOSAL, ACCEPT, SOLO, MISERE, ABONDANCE, OPEN_MISERE,
                                               DECLAREE)]
            + ["trump choice"]
            + [f"play {CALL_NAMES[c]} {side}" for c in BIDS for side in ("declaring", "defending")]
            + [f"play {where}" for where in ("lead", "follow", "void")])


def decision_events(state, b: int, action: int) -> list[str]:
    """What one decision of seat ``state.current_player[b]`` covered."""
    phase = int(state.phase[b])
    if phase == AUCTION:
        return [f"call {CALL_NAMES[action]}"]
    if phase == TRUMP:
        return ["trump choice"]
    seat = int(state.current_player[b])
    declaring = seat in (int(state.highest_bidder[b]), int(state.partner[b]))
    events = [f"play {CALL_NAMES[int(state.highest[b])]} {'declaring' if declaring else 'defending'}"]
    n = int(state.trick_len[b])
    if n == 0:
        events.append("play lead")
    else:
        led = int(state.trick_cards[b, int(state.leader[b])]) // 13
        events.append("play follow" if action // 13 == led else "play void")
    return events


def draw_roles(rng: np.random.Generator) -> np.ndarray:
    return rng.choice(3, size=4, p=ROLE_ODDS)


def play_both_bots(deals: int, batch: int = 32, seed: int = 0, lopsided: float = 0.3) -> tuple[Counter, int]:
    """Play until ``deals`` deals have ended; every rule decision compared.  (coverage, decisions compared)."""
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(seed=seed, batch_size=batch)
    rng = np.random.default_rng(seed)
    styles = Styles(batch, rng)
    roles = np.array([draw_roles(rng) for _ in range(batch)])
    python_bots = [[SoloWhistRuleAgent() for _ in range(4)] for _ in range(batch)]
    compiled = SoloWhistRuleBot(engine)
    covered: Counter = Counter()
    compared = finished = 0
    while finished < deals:
        seats = state.current_player.astype(np.int64)
        actions = styles.actions(state.legal_action_mask, seats, state.observation[:, MUST_RAISE])
        role = roles[np.arange(batch), seats]
        bot_rows = np.flatnonzero((role == RULE) | ((role == PLAY_ONLY) & (state.phase != AUCTION)
                                                     & (state.phase != TRUMP)))
        got = compiled.actions(state, bot_rows)
        for k, b in enumerate(bot_rows):
            seat = seats[b]
            ob = {"observation": state.observation[b], "action_mask": state.legal_action_mask[b]}
            want = python_bots[b][seat].act(ob)
            assert got[k] == want, (f"game {b} seat {seat} phase {int(state.phase[b])}: Python bot {want}, "
                                    f"compiled bot {got[k]}; small row {state.small[b].tolist()}")
            covered.update(decision_events(state, b, want))
            actions[b] = want
        compared += bot_rows.size
        engine.step(state, actions)
        for b in np.flatnonzero(state.terminated):
            finished += 1
            if rng.random() < lopsided:
                hands, dealer, turned, target, seat = lopsided_deal(rng)
                engine.reset(state, [b], deals=[hands], dealers=[dealer], turned=[turned])
                styles.redraw(b, target, seat)
            else:
                engine.reset(state, [b])
                styles.redraw(b)
            roles[b] = draw_roles(rng)
            for bot in python_bots[b]:
                bot.reset()
    return covered, compared


def missing(covered: Counter) -> list[str]:
    return [e for e in REQUIRED if not covered[e]]


def test_compiled_rule_bot_equals_python_bot_decision_by_decision():
    covered, compared = play_both_bots(deals=400, seed=5)
    assert compared > 7000
    assert not missing(covered), (missing(covered), covered)


@pytest.mark.slow
def test_compiled_rule_bot_equals_python_bot_over_thousands_of_deals():
    covered, compared = play_both_bots(deals=4000, batch=64, seed=6)
    assert compared > 70000
    assert not missing(covered), (missing(covered), covered)


def swap_hidden_cards(state, rng: np.random.Generator) -> None:
    """In every game, swap unplayed cards of one suit between the hands of two seats that are not to move (the
    turned card stays with the dealer): what the seat to move sees is unchanged, voids included."""
    hands, dealt = state.words[:, HAND:HAND + 4], state.words[:, DEALT:DEALT + 4]
    for b in range(state.batch_size):
        me, turned = int(state.current_player[b]), int(state.turned[b])
        for suit in range(4):
            x, y = rng.choice([s for s in range(4) if s != me], size=2, replace=False)
            cards = [[c for c in range(13 * suit, 13 * suit + 13) if int(hands[b, s]) >> c & 1 and c != turned]
                     for s in (x, y)]
            if cards[0] and cards[1]:
                swap = np.uint64(1 << int(rng.choice(cards[0])) | 1 << int(rng.choice(cards[1])))
                for words in (hands, dealt):
                    words[b, x] ^= swap
                    words[b, y] ^= swap


def test_the_bot_reads_no_card_its_seat_cannot_see():
    """The same decisions when the other seats' unplayed cards are swapped (a twin bot, with the same memory,
    acts on the swapped copy of the state)."""
    engine = SoloWhistEngine()
    state = engine.init(seed=3, batch_size=32)
    bot, twin = SoloWhistRuleBot(engine), SoloWhistRuleBot(engine)
    rng = np.random.default_rng(3)
    rows = np.arange(32)
    changed = 0
    for _ in range(250):
        shadow = state.copy()
        swap_hidden_cards(shadow, rng)
        changed += int((shadow.words != state.words).any(axis=1).sum())
        if bot.memory is not None:
            twin.memory = bot.memory.copy()
        actions = bot.actions(state, rows)
        assert np.array_equal(twin.actions(shadow, rows), actions)
        engine.step(state, actions)
    assert changed > 5000


def test_the_bot_refuses_a_game_whose_deal_is_over():
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(seed=1, batch_size=4)
    bot = SoloWhistRuleBot(engine)
    while not state.terminated[2]:
        live = np.flatnonzero(state.current_player >= 0)
        actions = np.zeros(4, dtype=np.int64)
        actions[live] = bot.actions(state, live)
        engine.step(state, actions)
    with pytest.raises(RuleBotError, match="game 2: the deal is over"):
        bot.actions(state, [2])


def test_the_bot_takes_only_a_solo_whist_engine_and_rows_of_its_batch():
    from vint_env.vector import WhistEngine
    with pytest.raises(TypeError, match="SoloWhistEngine"):
        SoloWhistRuleBot(WhistEngine())
    engine = SoloWhistEngine()
    state = engine.init(seed=1, batch_size=4)
    bot = SoloWhistRuleBot(engine)
    with pytest.raises(ValueError, match="game indices 0..3"):
        bot.actions(state, [4])
    assert bot.actions(state, np.zeros(4, dtype=bool)).shape == (0,)
    with pytest.raises(ValueError, match="remembers a batch of 4 games"):
        bot.actions(engine.init(seed=1, batch_size=8), [0])


def test_a_bot_for_copied_games_plays_them_on_as_the_original_with_its_memory():
    """``take_rows``: copies of games taken mid-deal (repeats included) and a bot made for them choose what the
    original bot chooses in the original games to the end of the deal; a fresh bot, which forgot the first
    discards and the partner's tricks, chooses otherwise somewhere (so the memory is what was copied).
    ``joined`` puts two such bots one after the other, as the states are concatenated."""
    from vint_env.training.engine_values import take_rows
    from vint_env.vector.state import VintBatchState
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(seed=5, batch_size=64)
    bot = SoloWhistRuleBot(engine)

    def step(state, bot):
        live = np.flatnonzero(state.current_player >= 0)
        actions = np.full(state.batch_size, -1, dtype=np.int64)
        actions[live] = bot.actions(state, live)
        engine.step(state, np.maximum(actions, 0))
        return actions

    for _ in range(30):                                   # the auction and a few tricks
        step(state, bot)
    keep = np.r_[np.arange(0, 64, 2), [1, 1, 3]]
    half = len(keep) // 2
    copies = take_rows(state, keep)
    copy_bot = SoloWhistRuleBot.joined([bot.take_rows(64, keep[:half]), bot.take_rows(64, keep[half:])])
    fresh_copies, fresh = VintBatchState(**{k: v.copy() for k, v in vars(copies).items()}), SoloWhistRuleBot(engine)
    differ = 0
    while (state.current_player >= 0).any():
        original = step(state, bot)
        assert np.array_equal(step(copies, copy_bot), original[keep])
        differ += int((step(fresh_copies, fresh) != original[keep]).sum())
    assert differ > 0
    with pytest.raises(ValueError, match="remember their batches"):
        SoloWhistRuleBot.joined([SoloWhistRuleBot(engine)])
