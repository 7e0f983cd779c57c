"""The shared deals, and the checks the env test files of every game share: random episodes, legality and trick
winners from the rules (docs/rules, "Common to all games") worked out apart from the engine, hidden-card swaps."""

import numpy as np

from vint_env.cards import hand_cards

# ---------------------------------------------------------------- the shared deals (PBN, North first, suits S.H.D.C)
#: The Short rules' worked deal (5 NT by North down 3, tests/data/examples).
DEAL_002 = "N:KJ74.AQ6.AKJ5.J8 A.KT932.82.AQT94 Q532.875.T93.763 T986.J4.Q764.K52"
#: Every hand one whole suit: North spades, East hearts, South diamonds, West clubs.
ONE_SUIT_EACH = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
#: Every hand one whole suit: North spades, East clubs, South diamonds, West hearts.
ONE_SUIT_EACH_CLUBS_EAST = "N:AKQJT98765432... ...AKQJT98765432 ..AKQJT98765432. .AKQJT98765432.."
#: ONE_SUIT_EACH with East's H2 and South's D2 exchanged.
ONE_SUIT_EACH_TWOS_SWAPPED = "N:AKQJT98765432... .AKQJT9876543.2. .2.AKQJT9876543. ...AKQJT98765432"
#: North holds the thirteen top cards (every ace, king and queen, and the SJ): a lay-down grand slam.
TOP_CARDS_NORTH = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
#: East holds the lowest cards (the 4-3-2 of spades, diamonds and clubs, the 5-4-3-2 of hearts): a sure misère.
LOWEST_EAST = "N:987.KQ.98765.Q65 432.5432.432.432 AKJ65.T.KQJT.AKJ QT.AJ9876.A.T987"


def random_episode(env, rng, check=None, final_infos=None, choose=None):
    """Play one AEC episode; returns the summed rewards per agent.

    ``check(env, agent, obs)`` runs before every live step; ``final_infos`` collects each agent's
    last info; ``choose(legal, rng)`` picks the action (default: uniform over the legal ones).
    """
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            if final_infos is not None:
                final_infos[agent] = info
            env.step(None)
            continue
        if check:
            check(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(choose(legal, rng)) if choose else int(rng.choice(legal)))
    return totals


def legal_cards_by_rules(play):
    """Legal cards from the rules directly (docs/rules, "Common to all games"): follow suit if able, else anything."""
    cards = set(hand_cards(play.hands[play.current_player]))
    if play.trick:
        follow = {c for c in cards if c // 13 == play.trick[0] // 13}
        return follow or cards
    return cards


def winner_by_rules(cards, leader, trump):
    """Trick winner from the rules (docs/rules, "Common to all games"): highest trump, else highest card of the suit led."""
    led = cards[0] // 13
    best = max(range(4), key=lambda i: (cards[i] // 13 == trump, cards[i] // 13 == led, cards[i] % 13))
    return (leader + best) % 4


def swap_hidden_cards(deal, me, rng, visible=0, seats=None):
    """A copy of ``deal`` with one unplayed card swapped between two other seats.

    Cards in the ``visible`` mask (a face-up turned card) are never moved; ``seats`` limits the
    seats whose cards may move (default: every seat but ``me``). Returns None when no swap exists.
    """
    new = deal.copy()
    hands = list(new.hands)
    current = list(new.play.hands) if new.play is not None else list(new.hands)
    others = [s for s in range(4) if s != me] if seats is None else list(seats)
    if len(others) < 2:
        return None
    a, b = (int(x) for x in rng.choice(others, size=2, replace=False))
    if not current[a] & ~visible or not current[b] & ~visible:
        return None
    x = int(rng.choice(hand_cards(current[a] & ~visible)))
    y = int(rng.choice(hand_cards(current[b] & ~visible)))
    for arr in (hands, current):
        arr[a] = arr[a] & ~(1 << x) | (1 << y)
        arr[b] = arr[b] & ~(1 << y) | (1 << x)
    new.hands = tuple(hands)
    if new.play is not None:
        new.play.hands = current
    return new
